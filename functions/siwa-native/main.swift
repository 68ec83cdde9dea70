import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaNativeFunction.self, adapters: Adapters.init(environment:))
