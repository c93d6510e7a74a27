"""TOTP MFA of Cognito user pools on moto, as the reviewer sign-in meets it.

moto 5.2 gets the shape of the TOTP flow right (AssociateSoftwareToken and VerifySoftwareToken
with a challenge's Session, NEW_PASSWORD_REQUIRED followed by MFA_SETUP in a pool whose MFA is
ON with software tokens enabled, SOFTWARE_TOKEN_MFA once a token is verified) but not what makes
it MFA:

- AssociateSoftwareToken answers the same secret (`asdfasdfasdf`) to every person;
- VerifySoftwareToken and the SOFTWARE_TOKEN_MFA challenge accept any code, unless
  MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true, and then only codes of that shared secret;
- InitiateAuth (USER_PASSWORD_AUTH) hands tokens to a confirmed person who never set up MFA in a
  pool that requires it, where Cognito asks for MFA_SETUP;
- RespondToAuthChallenge MFA_SETUP hands out tokens without the token having been verified, and
  leaves the session usable again;
- a session it does not know is refused with the session string itself as the message
  (ResourceNotFoundException or NotAuthorizedException), and VerifySoftwareToken leaves the
  session it was given usable after handing out the next one.

Here, as Cognito does:

- AssociateSoftwareToken generates a secret of the person's own (32 random bytes, base32: 52
  characters) (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AssociateSoftwareToken.html);
- VerifySoftwareToken checks the code against that secret with RFC 6238 (HMAC-SHA1, 6 digits,
  30-second steps: https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-mfa-totp.html);
  a wrong code is `EnableSoftwareTokenMFAException` "Code mismatch and fail enable Software
  Token MFA" (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_VerifySoftwareToken.html);
- the SOFTWARE_TOKEN_MFA challenge checks the code against the person's verified secret; a wrong
  code is `CodeMismatchException` "Invalid code or auth state for the user."
  (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RespondToAuthChallenge.html);
- InitiateAuth of a confirmed person without MFA in a pool whose MFA is ON answers MFA_SETUP with
  `MFAS_CAN_SETUP` (a JSON list in a string, as every ChallengeParameters value is a string);
- RespondToAuthChallenge MFA_SETUP is refused until the session's person has verified a software
  token, then turns TOTP on as the person's MFA and ends the session;
- a session is used once: VerifySoftwareToken ends the one it was given, and an unknown or used
  session is `NotAuthorizedException` "Invalid session for the user." in AssociateSoftwareToken,
  VerifySoftwareToken and RespondToAuthChallenge, as Cognito answers a session it will not take.

A code is accepted in its own 30-second step only (moto's window; Cognito does not document a
wider one).
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
import struct
import threading
import time

from moto.cognitoidp.exceptions import CodeMismatchException, NotAuthorizedError
from moto.cognitoidp.models import CognitoIdpBackend, UserStatus
from moto.core.exceptions import JsonRESTError

STEP_SECONDS = 30

_lock = threading.Lock()
_pending: dict[tuple[str, str], str] = {}  # (user pool id, user id) -> secret not yet verified
_verified: dict[tuple[str, str], str] = {}  # (user pool id, user id) -> the person's TOTP secret


class EnableSoftwareTokenMfa(JsonRESTError):
    def __init__(self) -> None:
        super().__init__(
            error_type="EnableSoftwareTokenMFAException",
            message="Code mismatch and fail enable Software Token MFA",
        )


def totp(secret: str, at: float) -> str:
    """The RFC 6238 code of a base32 `secret` at time `at` (https://www.rfc-editor.org/rfc/rfc6238)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8), casefold=True)
    digest = hmac.new(key, struct.pack(">Q", int(at // STEP_SECONDS)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def _matches(secret: str | None, code: str | None) -> bool:
    return bool(secret and code) and hmac.compare_digest(totp(secret, time.time()), str(code))


def _person(backend: CognitoIdpBackend, access_token: str | None, session: str | None):
    """The (user pool, user) a session or access token belongs to, or None."""
    if session:
        found = backend.sessions.get(session)
        if found is None:
            return None
        username, pool = found
        user = pool._get_user(username)
        return (pool, user) if user else None
    for pool in backend.user_pools.values():
        if access_token and access_token in pool.access_tokens:
            user = pool._get_user(pool.access_tokens[access_token][1])
            return (pool, user) if user else None
    return None


def _known_session(backend: CognitoIdpBackend, session: str | None) -> None:
    if session and session not in backend.sessions:
        raise NotAuthorizedError("Invalid session for the user.")


def _associate(original):
    def associate_software_token(self, access_token, session):
        _known_session(self, session)
        answer = original(self, access_token, session)  # moto's checks of the session or token
        found = _person(self, access_token, session)
        if found is None:
            raise NotAuthorizedError("Invalid session for the user.")
        pool, user = found
        secret = base64.b32encode(secrets.token_bytes(32)).decode().rstrip("=")
        with _lock:
            _pending[(pool.id, user.id)] = secret
        return {**answer, "SecretCode": secret}

    return associate_software_token


def _verify(original):
    def verify_software_token(self, access_token, session, user_code, friendly_device_name):
        _known_session(self, session)
        found = _person(self, access_token, session)
        if found is None:
            return original(self, access_token, session, user_code, friendly_device_name)
        pool, user = found
        with _lock:
            secret = _pending.get((pool.id, user.id))
        if not _matches(secret, user_code):
            raise EnableSoftwareTokenMfa()
        answer = original(self, access_token, session, user_code, friendly_device_name)
        with _lock:
            _verified[(pool.id, user.id)] = _pending.pop((pool.id, user.id))
        if session:
            self.sessions.pop(session, None)
        return answer

    return verify_software_token


def _respond(original):
    def respond_to_auth_challenge(self, session, client_id, challenge_name, challenge_responses):
        if challenge_name != "PASSWORD_VERIFIER":  # SRP's session travels in its responses
            _known_session(self, session)
        found = _person(self, None, session) if challenge_name in ("SOFTWARE_TOKEN_MFA", "MFA_SETUP") else None
        if found is not None and challenge_name == "SOFTWARE_TOKEN_MFA":
            pool, user = found
            with _lock:
                secret = _verified.get((pool.id, user.id))
            code = (challenge_responses or {}).get("SOFTWARE_TOKEN_MFA_CODE")
            if not _matches(secret, code):
                raise CodeMismatchException("Invalid code or auth state for the user.")
        if found is not None and challenge_name == "MFA_SETUP":
            pool, user = found
            with _lock:
                verified = (pool.id, user.id) in _verified
            if not verified:
                raise NotAuthorizedError("Invalid session for the user: no software token was verified.")
        answer = original(self, session, client_id, challenge_name, challenge_responses)
        if found is not None and challenge_name == "MFA_SETUP":
            _, user = found
            user.software_token_mfa_enabled = True
            user.preferred_mfa_setting = "SOFTWARE_TOKEN_MFA"
            self.sessions.pop(session, None)
        return answer

    return respond_to_auth_challenge


def _can_set_up(pool) -> list[str]:
    can = ["SOFTWARE_TOKEN_MFA"] if pool.token_mfa_config == {"Enabled": True} else []
    return [*can, "SMS_MFA"] if pool.sms_mfa_config else can


def _initiate(original):
    def initiate_auth(self, client_id, auth_flow, auth_parameters):
        if auth_flow == "USER_PASSWORD_AUTH":
            pool = next((p for p in self.user_pools.values() if client_id in p.clients), None)
            name = (auth_parameters or {}).get("USERNAME")
            user = pool._get_user(name) if pool and name else None
            if (
                user is not None
                and user.enabled
                and user.status is UserStatus.CONFIRMED
                and user.password == (auth_parameters or {}).get("PASSWORD")
                and pool.mfa_config == "ON"
                and not user.token_verified
                and not user.sms_mfa_enabled
                and _can_set_up(pool)
            ):
                session = secrets.token_urlsafe(32)
                self.sessions[session] = (name, pool)
                return {
                    "ChallengeName": "MFA_SETUP",
                    "ChallengeParameters": {"MFAS_CAN_SETUP": json.dumps(_can_set_up(pool))},
                    "Session": session,
                }
        return original(self, client_id, auth_flow, auth_parameters)

    return initiate_auth


def patch_totp_mfa() -> None:
    # moto's own check would compare codes with its one shared secret; the checks above replace it.
    os.environ["MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP"] = "false"
    CognitoIdpBackend.associate_software_token = _associate(CognitoIdpBackend.associate_software_token)
    CognitoIdpBackend.verify_software_token = _verify(CognitoIdpBackend.verify_software_token)
    CognitoIdpBackend.respond_to_auth_challenge = _respond(CognitoIdpBackend.respond_to_auth_challenge)
    CognitoIdpBackend.initiate_auth = _initiate(CognitoIdpBackend.initiate_auth)
