import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaCallbackFunction.self, adapters: Adapters.init(environment:))
