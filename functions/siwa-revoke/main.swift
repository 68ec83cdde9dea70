import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(SiwaRevokeFunction.self)
