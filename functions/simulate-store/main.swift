import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SimulateStoreFunction.self, adapters: Adapters.init(environment:))
