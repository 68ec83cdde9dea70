import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(MergeCustomersFunction.self, adapters: Adapters.init(environment:))
