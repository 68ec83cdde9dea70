#!/usr/bin/env python3
"""Apple's own Python library (app-store-server-library from PyPI, installed by `make deps`
into var/python) signing the same offers sign-offer signs, so the tests compare Storekeeper's
signatures with an implementation it does not share.

Reads one JSON object on stdin:
  {"kind": "promotionalOffer" | "promotionalOfferV2" | "introductoryOfferEligibility" | "advancedCommerceInApp",
   "key": "<path to the .p8>", "keyId", "issuerId", "bundleId",
   promotionalOffer: "productId", "offerId", "appAccountToken", "nonce", "timestamp"
   promotionalOfferV2: "productId", "offerId", "transactionId" (optional)
   introductoryOfferEligibility: "productId", "allowIntroductoryOffer", "transactionId"
   advancedCommerceInApp: "request" (a one-time charge create request, as JSON)}
and prints {"signature": "..."}: the base64 DER signature or the compact JWS.
"""
import json
import sys
import uuid

from appstoreserverlibrary.jws_signature_creator import (
    AdvancedCommerceAPIInAppSignatureCreator,
    IntroductoryOfferEligibilitySignatureCreator,
    PromotionalOfferV2SignatureCreator,
)
from appstoreserverlibrary.models.AdvancedCommerceOneTimeChargeCreateRequest import AdvancedCommerceOneTimeChargeCreateRequest
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator


def one_time_charge(request):
    """The library's own model of the request: what its users hand the creator."""
    fields = {name: value for name, value in request.items() if name not in ("operation", "version")}
    model = AdvancedCommerceOneTimeChargeCreateRequest
    return _get_cattrs_converter(model).structure(fields, model)


def sign(spec):
    with open(spec["key"], "rb") as handle:
        key = handle.read()
    kind = spec["kind"]
    if kind == "promotionalOffer":
        creator = PromotionalOfferSignatureCreator(key, spec["keyId"], spec["bundleId"])
        return creator.create_signature(spec["productId"], spec["offerId"], spec.get("appAccountToken", ""),
                                        uuid.UUID(spec["nonce"]), spec["timestamp"])
    arguments = (key, spec["keyId"], spec["issuerId"], spec["bundleId"])
    if kind == "promotionalOfferV2":
        return PromotionalOfferV2SignatureCreator(*arguments).create_signature(
            spec["productId"], spec["offerId"], spec.get("transactionId"))
    if kind == "introductoryOfferEligibility":
        return IntroductoryOfferEligibilitySignatureCreator(*arguments).create_signature(
            spec["productId"], spec["allowIntroductoryOffer"], spec["transactionId"])
    if kind == "advancedCommerceInApp":
        return AdvancedCommerceAPIInAppSignatureCreator(*arguments).create_signature(one_time_charge(spec["request"]))
    raise SystemExit(f"unknown kind {kind}")


if __name__ == "__main__":
    print(json.dumps({"signature": sign(json.load(sys.stdin))}))
