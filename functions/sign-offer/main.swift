import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SignOfferFunction.self, adapters: Adapters.init(environment:))
