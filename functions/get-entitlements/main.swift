import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(GetEntitlementsFunction.self, adapters: Adapters.init(environment:))
