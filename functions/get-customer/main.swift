import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(GetCustomerFunction.self, adapters: Adapters.init(environment:))
