import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaNotificationFunction.self, adapters: Adapters.init(environment:))
