import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(RefundRequestsFunction.self, adapters: Adapters.init(environment:))
