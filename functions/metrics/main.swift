import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(MetricsFunction.self, adapters: Adapters.init(environment:))
