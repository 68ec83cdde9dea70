import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(DoctorFunction.self, adapters: Adapters.init(environment:))
