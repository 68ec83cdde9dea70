import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SetConsumptionFunction.self, adapters: Adapters.init(environment:))
