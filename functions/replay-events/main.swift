import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ReplayEventsFunction.self, adapters: Adapters.init(environment:))
