import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(RecoverNotificationsFunction.self, adapters: Adapters.init(environment:))
