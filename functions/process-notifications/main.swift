import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ProcessNotificationsFunction.self, adapters: Adapters.init(environment:))
