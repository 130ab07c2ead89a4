#!/usr/bin/env python3
"""python-fido2, a FIDO2 client nobody here wrote, against passkey-vcard's FIDO2
applet through the real pcscd: CtapPcscDevice over pyscard (libpcsclite, so
PCSCLITE_CSOCK_NAME points it at the test's pcscd).

    fido2_over_pcsc.py READER < PIN
    fido2_over_pcsc.py READER --cancel

It reads GetInfo, sets the PIN with ClientPin, checks a wrong PIN costs one
retry, registers a discoverable credential with user verification (the PIN)
and hmac-secret, and asserts with it twice, by allow list and as a
discoverable credential. python-fido2 judges what the applet returns:
Fido2Server checks rpIdHash, UP, UV and the assertion signatures, and its
PackedAttestation verifies the packed self attestation. Prints one JSON line
of facts for the calling test; any disagreement is an exception and exit 1.

With --cancel (the card's simulated user never touches) it starts a
makeCredential, and once the card reports UPNEEDED through 9100 it cancels
the way python-fido2 does (NFCCTAP_GETRESPONSE with P1 0x11): the request
must end with CTAP2_ERR_KEEPALIVE_CANCEL and the card must answer again.
"""
import json
import os
import sys
from threading import Event

try:
    from fido2.attestation import AttestationType, PackedAttestation
    from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
    from fido2.ctap import STATUS, CtapError
    from fido2.ctap2 import Ctap2
    from fido2.ctap2.extensions import CredPropsExtension, HmacSecretExtension
    from fido2.ctap2.pin import ClientPin
    from fido2.pcsc import CtapPcscDevice
    from fido2.server import Fido2Server
    from fido2.webauthn import PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity
except ImportError as error:
    print(f"python-fido2 or pyscard is not installed ({error}): run ./scripts/test, "
          "which installs Tests/Interop/requirements.txt", file=sys.stderr)
    sys.exit(3)

RP = PublicKeyCredentialRpEntity(id="example.com", name="Example")
ORIGIN = "https://example.com"
USER = PublicKeyCredentialUserEntity(id=b"user-0001", name="alice", display_name="Alice Liddell")


def check(condition, what):
    if not condition:
        raise AssertionError(what)


class Interaction(UserInteraction):
    """The person at the reader: knows the PIN, counts the touch prompts."""

    def __init__(self, pin):
        self.pin = pin
        self.touch_prompts = 0

    def prompt_up(self):
        self.touch_prompts += 1

    def request_pin(self, permissions, rp_id):
        return self.pin

    def request_uv(self, permissions, rp_id):
        return True


def verify_packed_self(attestation_object, client_data_hash):
    """Fido2Server's attestation hook: python-fido2's own packed verifier."""
    check(attestation_object.fmt == "packed", f"attestation format {attestation_object.fmt}, expected packed")
    result = PackedAttestation().verify(attestation_object.att_stmt, attestation_object.auth_data, client_data_hash)
    check(result.attestation_type == AttestationType.SELF, f"attestation type {result.attestation_type}")


def open_device(reader):
    devices = [d for d in CtapPcscDevice.list_devices(reader)]
    check(devices, f"python-fido2 found no FIDO device in reader {reader!r}")
    return devices[0]


def cancel_while_waiting(reader):
    """A makeCredential the user never answers, cancelled once the card says UPNEEDED."""
    device = open_device(reader)
    ctap2 = Ctap2(device)
    event = Event()
    statuses = []

    def on_keepalive(status):
        statuses.append(int(status))
        if status == STATUS.UPNEEDED:
            event.set()

    try:
        ctap2.make_credential(os.urandom(32), {"id": RP.id, "name": RP.name},
                              {"id": USER.id, "name": USER.name}, [{"type": "public-key", "alg": -7}],
                              event=event, on_keepalive=on_keepalive)
        raise AssertionError("makeCredential succeeded although nobody touched the key")
    except CtapError as error:
        check(error.code == CtapError.ERR.KEEPALIVE_CANCEL, f"cancelled request answered {error.code!r}")
    check(int(STATUS.UPNEEDED) in statuses, f"keepalive statuses {statuses}, no UPNEEDED")
    check(ctap2.get_info().aaguid is not None, "the card does not answer after the cancel")
    print(json.dumps({"keepaliveStatuses": sorted(set(statuses)), "cancelled": True}))


def main():
    reader = sys.argv[1]
    if sys.argv[2:] == ["--cancel"]:
        cancel_while_waiting(reader)
        return
    pin = sys.stdin.readline().strip()  # on stdin: a PIN has no place on a command line
    check(pin, "no PIN on standard input")
    facts = {"readerSeen": reader}

    device = open_device(reader)
    ctap2 = Ctap2(device)
    info = ctap2.info
    check("FIDO_2_0" in info.versions and "FIDO_2_1" in info.versions, f"versions {info.versions}")
    check("hmac-secret" in info.extensions, f"extensions {info.extensions}")
    check(info.transports == ["nfc"], f"transports {info.transports}")
    check(info.options.get("clientPin") is False, f"clientPin {info.options.get('clientPin')} on a new card")
    facts["aaguid"] = info.aaguid.hex()
    facts["versions"] = info.versions

    # The PIN: set, then a wrong one costs exactly one retry.
    client_pin = ClientPin(ctap2)
    client_pin.set_pin(pin)
    check(ctap2.get_info().options.get("clientPin") is True, "clientPin is not true after setPIN")
    retries_before = client_pin.get_pin_retries()[0]
    try:
        client_pin.get_pin_token("0000" + pin)
        raise AssertionError("a wrong PIN gave a token")
    except CtapError as error:
        check(error.code == CtapError.ERR.PIN_INVALID, f"wrong PIN answered {error.code!r}")
    check(client_pin.get_pin_retries()[0] == retries_before - 1, "a wrong PIN did not cost one retry")
    facts["pinRetriesAfterWrongPIN"] = retries_before - 1

    interaction = Interaction(pin)
    client = Fido2Client(device, client_data_collector=DefaultClientDataCollector(ORIGIN),
                         user_interaction=interaction,
                         extensions=[HmacSecretExtension(allow_hmac_secret=True), CredPropsExtension()])
    server = Fido2Server(RP, attestation="direct", verify_attestation=verify_packed_self)

    # Registration: discoverable, user verification required (the PIN), hmac-secret.
    options, state = server.register_begin(USER, resident_key_requirement="required",
                                           user_verification="required",
                                           extensions={"hmacCreateSecret": True, "credProps": True})
    registration = client.make_credential(options.public_key)
    auth_data = server.register_complete(state, registration)
    check(auth_data.is_user_verified(), "registration without UV although the PIN was used")
    extensions = registration.client_extension_results
    check(extensions.hmac_create_secret is True, f"hmacCreateSecret {extensions.hmac_create_secret}")
    credential = auth_data.credential_data
    facts["credentialId"] = credential.credential_id.hex()
    facts["registrationCounter"] = auth_data.counter

    # Assertion by allow list, with two hmac-secret salts; the same salt gives the same secret.
    salt1, salt2 = os.urandom(32), os.urandom(32)
    outputs = []
    counters = [auth_data.counter]
    for salts in ({"salt1": salt1}, {"salt1": salt1, "salt2": salt2}):
        request, state = server.authenticate_begin([credential], user_verification="required",
                                                   extensions={"hmacGetSecret": salts})
        selection = client.get_assertion(request.public_key)
        response = selection.get_response(0)
        server.authenticate_complete(state, [credential], response)
        assertion_data = response.response.authenticator_data
        check(assertion_data.is_user_verified(), "assertion without UV")
        counters.append(assertion_data.counter)
        secret = response.client_extension_results.hmac_get_secret
        check(secret is not None and len(secret.output1) == 32, "no hmac-secret output")
        outputs.append(secret)
    check(outputs[0].output1 == outputs[1].output1, "hmac-secret gave two secrets for one salt")
    check(outputs[1].output2 is not None and outputs[1].output2 != outputs[1].output1,
          "hmac-secret's second salt gave no distinct secret")
    check(counters == sorted(set(counters)), f"signature counters not increasing: {counters}")
    facts["counters"] = counters

    # Discoverable: no allow list; the applet names the user.
    request, state = server.authenticate_begin(None, user_verification="required")
    selection = client.get_assertion(request.public_key)
    responses = selection.get_assertions()
    check(len(responses) == 1, f"{len(responses)} discoverable credentials, expected 1")
    response = selection.get_response(0)
    server.authenticate_complete(state, [credential], response)
    check(response.response.user_handle == USER.id, "the discoverable assertion names another user")
    # One account for this RP: CTAP 2.1 §6.2.2 has the authenticator return the user's id only.
    check(responses[0].user == {"id": USER.id}, f"user {responses[0].user}")

    facts["touchPrompts"] = interaction.touch_prompts
    facts["verified"] = "python-fido2 verified attestation, assertions, UV, hmac-secret"
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
