import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(GrantEntitlementFunction.self, adapters: Adapters.init(environment:))
