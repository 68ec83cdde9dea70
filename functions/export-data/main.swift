import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(ExportDataFunction.self, adapters: Adapters.init(environment:))
