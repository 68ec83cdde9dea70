import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(DashboardFunction.self, adapters: Adapters.init(environment:))
