import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(RetentionMessageFunction.self, adapters: Adapters.init(environment:))
