import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ReconcileFunction.self, adapters: Adapters.init(environment:))
