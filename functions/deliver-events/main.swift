import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(DeliverEventsFunction.self, adapters: Adapters.init(environment:))
