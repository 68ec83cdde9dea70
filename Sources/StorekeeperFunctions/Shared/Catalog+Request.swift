import FunctionRuntime
import StorekeeperCore

extension Catalog {
    /// The app a request's optional `bundleId` names: that one, which the deployment must
    /// serve, or without it the only app; with several apps a request that names none is
    /// refused rather than guessed.
    func app(requested bundleId: String?) throws -> CatalogApp {
        if let bundleId {
            guard let app = app(bundleId: bundleId) else {
                throw FunctionError.badInput(
                    message: "bundleId \(bundleId.prefix(200)) is not one of this deployment's apps (\(apps.map(\.bundleId).joined(separator: ", ")))")
            }
            return app
        }
        guard apps.count == 1, let only = apps.first else {
            throw FunctionError.badInput(
                message: "the catalog has several apps: name one with bundleId (\(apps.map(\.bundleId).joined(separator: ", ")))")
        }
        return only
    }
}
