import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(IngestTransactionFunction.self, adapters: Adapters.init(environment:))
