import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(VerifySignedDataFunction.self, adapters: Adapters.init(environment:))
