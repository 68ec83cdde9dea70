import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ReceiveNotificationFunction.self, adapters: Adapters.init(environment:))
