import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(MyEntitlementsFunction.self, adapters: Adapters.init(environment:))
