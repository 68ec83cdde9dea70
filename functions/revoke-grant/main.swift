import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(RevokeGrantFunction.self, adapters: Adapters.init(environment:))
