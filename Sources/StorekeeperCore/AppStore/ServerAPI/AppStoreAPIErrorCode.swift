/// Apple's documented App Store Server API error codes, with Apple's names and whether Apple
/// says the same request may succeed later.
///
/// Any 5xx answer is retried whatever its code (`AppStoreAPIError.isRetryable`), so
/// GeneralInternalError (5000000), which Apple does not call retryable, is still retried.
///
/// Retention Messaging codes are listed with the rest (app-store-api calls that API too);
/// Advanced Commerce codes are not: Storekeeper does not call it. An unlisted code still
/// surfaces, as `AppStoreAPIError.errorCode`.
///
/// [Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)
public enum AppStoreAPIErrorCode {
    public struct Entry: Sendable, Equatable {
        public let code: Int64
        /// Apple's name, e.g. `TransactionIdNotFoundError`.
        public let name: String
        public let isRetryable: Bool

        /// The HTTP status Apple answers the code with (its first three digits: 4040010 is a 404).
        public var httpStatus: Int { Int(code / 10_000) }

        /// How an answer with this code is taken, by the rule every Apple answer follows:
        /// retryable (by Apple's word, a 429 or a 5xx) is retry later, a 404 is not found, the
        /// rest is the caller's bad input.
        public var disposition: ErrorDisposition {
            AppStoreAPIError.disposition(kind: .apple, isRetryable: AppStoreAPIError.isRetryable(isRetryable, status: httpStatus),
                                         httpStatus: httpStatus)
        }
    }

    public static let all: [Entry] = [
        Entry(code: 4000000, name: "GeneralBadRequestError", isRetryable: false),
        Entry(code: 4000002, name: "InvalidAppIdentifierError", isRetryable: false),
        Entry(code: 4000005, name: "InvalidRequestRevisionError", isRetryable: false),
        Entry(code: 4000006, name: "InvalidTransactionIdError", isRetryable: false),
        Entry(code: 4000008, name: "InvalidOriginalTransactionIdError", isRetryable: false),
        Entry(code: 4000009, name: "InvalidExtendByDaysError", isRetryable: false),
        Entry(code: 4000010, name: "InvalidExtendReasonCodeError", isRetryable: false),
        Entry(code: 4000011, name: "InvalidRequestIdentifierError", isRetryable: false),
        Entry(code: 4000012, name: "StartDateTooFarInPastError", isRetryable: false),
        Entry(code: 4000013, name: "StartDateAfterEndDateError", isRetryable: false),
        Entry(code: 4000014, name: "InvalidPaginationTokenError", isRetryable: false),
        Entry(code: 4000015, name: "InvalidStartDateError", isRetryable: false),
        Entry(code: 4000016, name: "InvalidEndDateError", isRetryable: false),
        Entry(code: 4000017, name: "PaginationTokenExpiredError", isRetryable: false),
        Entry(code: 4000018, name: "InvalidNotificationTypeError", isRetryable: false),
        Entry(code: 4000019, name: "MultipleFiltersSuppliedError", isRetryable: false),
        Entry(code: 4000020, name: "InvalidTestNotificationTokenError", isRetryable: false),
        Entry(code: 4000021, name: "InvalidSortError", isRetryable: false),
        Entry(code: 4000022, name: "InvalidProductTypeError", isRetryable: false),
        Entry(code: 4000023, name: "InvalidProductIdError", isRetryable: false),
        Entry(code: 4000024, name: "InvalidSubscriptionGroupIdentifierError", isRetryable: false),
        Entry(code: 4000025, name: "InvalidExcludeRevokedError", isRetryable: false),
        Entry(code: 4000026, name: "InvalidInAppOwnershipTypeError", isRetryable: false),
        Entry(code: 4000027, name: "InvalidEmptyStorefrontCountryCodeListError", isRetryable: false),
        Entry(code: 4000028, name: "InvalidStorefrontCountryCodeError", isRetryable: false),
        Entry(code: 4000030, name: "InvalidRevokedError", isRetryable: false),
        Entry(code: 4000031, name: "InvalidStatusError", isRetryable: false),
        Entry(code: 4000032, name: "InvalidAccountTenureError", isRetryable: false),
        Entry(code: 4000033, name: "InvalidAppAccountTokenError", isRetryable: false),
        Entry(code: 4000034, name: "InvalidConsumptionStatusError", isRetryable: false),
        Entry(code: 4000035, name: "InvalidCustomerConsentedError", isRetryable: false),
        Entry(code: 4000036, name: "InvalidDeliveryStatusError", isRetryable: false),
        Entry(code: 4000037, name: "InvalidLifetimeDollarsPurchasedError", isRetryable: false),
        Entry(code: 4000038, name: "InvalidLifetimeDollarsRefundedError", isRetryable: false),
        Entry(code: 4000039, name: "InvalidPlatformError", isRetryable: false),
        Entry(code: 4000040, name: "InvalidPlayTimeError", isRetryable: false),
        Entry(code: 4000041, name: "InvalidSampleContentProvidedError", isRetryable: false),
        Entry(code: 4000042, name: "InvalidUserStatusError", isRetryable: false),
        Entry(code: 4000043, name: "InvalidTransactionNotConsumableError", isRetryable: false),
        Entry(code: 4000047, name: "InvalidTransactionTypeNotSupportedError", isRetryable: false),
        Entry(code: 4000048, name: "AppTransactionIdNotSupportedError", isRetryable: false),
        Entry(code: 4000161, name: "InvalidImageError", isRetryable: false),
        Entry(code: 4000162, name: "HeaderTooLongError", isRetryable: false),
        Entry(code: 4000163, name: "BodyTooLongError", isRetryable: false),
        Entry(code: 4000164, name: "InvalidLocaleError", isRetryable: false),
        Entry(code: 4000175, name: "AltTextTooLongError", isRetryable: false),
        Entry(code: 4000183, name: "InvalidAppAccountTokenUUIDError", isRetryable: false),
        Entry(code: 4000185, name: "FamilyTransactionNotSupportedError", isRetryable: false),
        Entry(code: 4000187, name: "TransactionIdIsNotOriginalTransactionIdError", isRetryable: false),
        Entry(code: 4000211, name: "InvalidPerformanceTestRequestError", isRetryable: false),
        Entry(code: 4000212, name: "InvalidRequestIdError", isRetryable: false),
        Entry(code: 4000213, name: "ExistingPerformanceTestRunError", isRetryable: false),
        Entry(code: 4000215, name: "BadRequestRealtimeUrlError", isRetryable: false),
        Entry(code: 4000216, name: "BadRequestImageSizeError", isRetryable: false),
        Entry(code: 4000218, name: "BadRequestTooManyBulletPointsError", isRetryable: false),
        Entry(code: 4000219, name: "BadRequestBulletPointTextTooLongError", isRetryable: false),
        Entry(code: 4000224, name: "BadRequestAboveImageRequiresAnImageError", isRetryable: false),
        Entry(code: 4030004, name: "SubscriptionExtensionIneligibleError", isRetryable: false),
        Entry(code: 4030005, name: "SubscriptionMaxExtensionError", isRetryable: false),
        Entry(code: 4030007, name: "FamilySharedSubscriptionExtensionIneligibleError", isRetryable: false),
        Entry(code: 4030014, name: "MaximumNumberOfImagesReachedError", isRetryable: false),
        Entry(code: 4030016, name: "MaximumNumberOfMessagesReachedError", isRetryable: false),
        Entry(code: 4030017, name: "MessageNotApprovedError", isRetryable: false),
        Entry(code: 4030018, name: "ImageNotApprovedError", isRetryable: false),
        Entry(code: 4030019, name: "ImageInUseError", isRetryable: false),
        Entry(code: 4030026, name: "ForbiddenNoPassingTestError", isRetryable: false),
        Entry(code: 4040001, name: "AccountNotFoundError", isRetryable: false),
        Entry(code: 4040002, name: "AccountNotFoundRetryableError", isRetryable: true),
        Entry(code: 4040003, name: "AppNotFoundError", isRetryable: false),
        Entry(code: 4040004, name: "AppNotFoundRetryableError", isRetryable: true),
        Entry(code: 4040005, name: "OriginalTransactionIdNotFoundError", isRetryable: false),
        Entry(code: 4040006, name: "OriginalTransactionIdNotFoundRetryableError", isRetryable: true),
        Entry(code: 4040007, name: "ServerNotificationUrlNotFoundError", isRetryable: false),
        Entry(code: 4040008, name: "TestNotificationNotFoundError", isRetryable: false),
        Entry(code: 4040009, name: "StatusRequestNotFoundError", isRetryable: false),
        Entry(code: 4040010, name: "TransactionIdNotFoundError", isRetryable: false),
        Entry(code: 4040014, name: "ImageNotFoundError", isRetryable: false),
        Entry(code: 4040015, name: "MessageNotFoundError", isRetryable: false),
        Entry(code: 4040018, name: "PerformanceTestRunNotFoundError", isRetryable: false),
        Entry(code: 4040019, name: "AppTransactionDoesNotExistError", isRetryable: false),
        Entry(code: 4040020, name: "DefaultMessageNotFoundError", isRetryable: false),
        Entry(code: 4040021, name: "RealtimeUrlNotFoundError", isRetryable: false),
        Entry(code: 4090000, name: "ImageAlreadyExistsError", isRetryable: false),
        Entry(code: 4090001, name: "MessageAlreadyExistsError", isRetryable: false),
        Entry(code: 4290000, name: "RateLimitExceededError", isRetryable: true),
        Entry(code: 5000000, name: "GeneralInternalError", isRetryable: false),
        Entry(code: 5000001, name: "GeneralInternalRetryableError", isRetryable: true),
    ]

    private static let byCode: [Int64: Entry] = Dictionary(all.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })

    public static func entry(_ code: Int64) -> Entry? { byCode[code] }

    /// Codes that mean "no such transaction here": in production they send a lookup to the
    /// sandbox when Sandbox data is accepted (App Review buys in the sandbox).
    public static let notFoundInEnvironment: Set<Int64> = [4040005, 4040010, 4040019]

    public static let transactionIdNotFound: Int64 = 4040010
    public static let rateLimitExceeded: Int64 = 4290000
}
