import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ImportCustomersFunction.self, adapters: Adapters.init(environment:))
