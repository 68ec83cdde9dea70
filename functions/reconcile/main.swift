import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(ReconcileFunction.self)
