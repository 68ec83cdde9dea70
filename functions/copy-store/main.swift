import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(CopyStoreFunction.self, adapters: Adapters.init(environment:))
