import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaRevokeFunction.self, adapters: Adapters.init(environment:))
