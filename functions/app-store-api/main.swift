import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(AppStoreAPIFunction.self, adapters: Adapters.init(environment:))
