import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaVerifyTokenFunction.self, adapters: Adapters.init(environment:))
