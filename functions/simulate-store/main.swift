import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(SimulateStoreFunction.self)
