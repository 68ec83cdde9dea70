import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(DeleteCustomerFunction.self, adapters: Adapters.init(environment:))
