import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(TestNotificationFunction.self, adapters: Adapters.init(environment:))
