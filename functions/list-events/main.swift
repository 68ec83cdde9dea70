import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ListEventsFunction.self, adapters: Adapters.init(environment:))
