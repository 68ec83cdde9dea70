import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(SiwaStartFunction.self, adapters: Adapters.init(environment:))
