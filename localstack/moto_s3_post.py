"""Browser-based uploads (S3 POST with a POST policy) checked as S3 checks them.

The status API hands out each upload as a presigned POST whose signed policy fixes the key, the
metadata the pipeline relies on (owner, options) and the largest body it accepts
(`content-length-range`). S3 enforces that policy
(https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html); moto reads
none of it: it stores any body under any key with any metadata, so a ground on moto would accept
exactly the uploads the policy exists to refuse. Here a POST upload is checked as S3 checks it,
with S3's own codes and messages (as recorded against S3 in LocalStack's snapshot tests):

- the form must be `multipart/form-data` (412 PreconditionFailed), carry a `key` and exactly one
  file (400 InvalidArgument), and, with a policy, the SigV4 fields;
- a policy that is not base64 JSON is refused (400 InvalidPolicyDocument), an expired one too
  (403 AccessDenied "Invalid according to Policy: Policy expired.");
- every condition must hold: an exact match (`{"field": "value"}` or `["eq", "$field", "value"]`)
  and `["starts-with", "$field", "prefix"]` on the form's field (`bucket` is the bucket posted to),
  else 403 AccessDenied "Invalid according to Policy: Policy Condition failed: [...]";
  `["content-length-range", min, max]` on the file's size, else 400 EntityTooLarge ("Your proposed
  upload exceeds the maximum allowed size", with ProposedSize and MaxSizeAllowed) or
  EntityTooSmall;
- every form field other than the file, the policy, the signature and `x-ignore-*` fields must be
  named by a condition, else 403 AccessDenied "Invalid according to Policy: Extra input fields:
  <field>".

An upload that passes is stored with its `x-amz-meta-*` fields as metadata, and only then
notified as `s3:ObjectCreated:Post` (moto notifies before it sets the metadata, so a consumer
quick enough would read an object without its owner). The answer is S3's default, 204 with the
ETag and the `x-amz-version-id` of a versioned bucket
(https://docs.aws.amazon.com/AmazonS3/latest/API/postVersions.html).

Not modelled: the policy's signature (moto verifies no request signature of any service, and
neither does this launcher; on AWS the signature is what keeps a client from rewriting the
policy, here only the conditions are enforced), and `success_action_status` /
`success_action_redirect` (the project's uploads ask for neither).
"""

import base64
import binascii
import datetime
import json
import uuid
from xml.sax.saxutils import escape

from moto.s3 import notifications
from moto.s3.exceptions import S3ClientError
from moto.s3.responses import S3Response
from moto.s3.utils import cors_matches_origin, metadata_from_headers

# Fields S3 does not require a condition for.
_UNCONDITIONED = {"x-amz-signature", "file", "policy"}
_SIGV4_FIELDS = ["x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature"]
_FIELD_NAMES = {
    "x-amz-algorithm": "X-Amz-Algorithm",
    "x-amz-credential": "X-Amz-Credential",
    "x-amz-date": "X-Amz-Date",
    "x-amz-signature": "X-Amz-Signature",
}


class Refusal(Exception):
    """An S3 error answer: status, code, message and the elements S3 adds to the error."""

    def __init__(self, status: int, code: str, message: str, **extra):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra

    def response(self, headers: dict):
        elements = "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in self.extra.items())
        request_id = uuid.uuid4().hex.upper()[:16]
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{self.code}</Code><Message>{escape(self.message)}</Message>{elements}"
            f"<RequestId>{request_id}</RequestId><HostId>{request_id}</HostId></Error>"
        )
        return self.status, {**headers, "Content-Type": "application/xml"}, body


def _policy_refusal(message: str) -> Refusal:
    return Refusal(403, "AccessDenied", f"Invalid according to Policy: {message}")


def _shown(condition) -> str:
    """A condition as S3 quotes it in a refusal: the eq form, each element a JSON string."""
    if isinstance(condition, dict):
        ((name, value),) = condition.items()
        condition = ["eq", f"${name}", value]
    return "[" + ", ".join(json.dumps(str(e)) for e in condition) + "]"


def _expiration(text: str) -> datetime.datetime:
    for pattern in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return datetime.datetime.strptime(text, pattern).replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            continue
    raise Refusal(400, "InvalidPolicyDocument", "Invalid Policy: Invalid 'expiration' value: '" + text + "'")


def _condition_holds(condition, form: dict, bucket: str, size: int) -> tuple[bool, str | None]:
    """Whether one condition holds, and the form field it names (None for a length range)."""
    if isinstance(condition, dict):
        if len(condition) != 1:
            raise Refusal(
                400,
                "InvalidPolicyDocument",
                "Invalid Policy: Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.",
            )
        ((name, value),) = condition.items()
        field = name.lower()
        actual = bucket if field == "bucket" else form.get(field)
        return actual == value, field
    if not isinstance(condition, list) or len(condition) != 3:
        raise Refusal(400, "InvalidPolicyDocument", "Invalid Policy: Invalid Condition: " + json.dumps(condition))
    operator, first, second = condition
    if operator == "content-length-range":
        try:
            low, high = int(first), int(second)
        except (TypeError, ValueError):
            return False, None
        if size > high:
            raise Refusal(
                400,
                "EntityTooLarge",
                "Your proposed upload exceeds the maximum allowed size",
                ProposedSize=size,
                MaxSizeAllowed=high,
            )
        if size < low:
            raise Refusal(
                400,
                "EntityTooSmall",
                "Your proposed upload is smaller than the minimum allowed size",
                ProposedSize=size,
                MinSizeAllowed=low,
            )
        return True, None
    if operator not in ("eq", "starts-with") or not isinstance(first, str):
        raise Refusal(400, "InvalidPolicyDocument", "Invalid Policy: Invalid Condition: " + json.dumps(condition))
    if not first.startswith("$"):
        return False, None
    field = first[1:].lower()
    actual = bucket if field == "bucket" else form.get(field)
    if actual is None:
        return False, field
    if operator == "eq":
        return actual == second, field
    return actual.startswith(str(second)), field


def check_policy(form: dict, bucket: str, size: int, now: datetime.datetime) -> None:
    """Refuses a POST upload its policy does not allow (form keys lower-case)."""
    missing = next((f for f in _SIGV4_FIELDS if f not in form), None)
    if missing and any(f in form for f in _SIGV4_FIELDS):
        raise Refusal(
            400,
            "InvalidArgument",
            f"Bucket POST must contain a field named '{_FIELD_NAMES[missing]}'.  If it is specified, "
            "please check the order of the fields.",
            ArgumentName=_FIELD_NAMES[missing],
            ArgumentValue="",
        )
    try:
        policy = json.loads(base64.b64decode(form["policy"], validate=True).decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise Refusal(400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.") from error
    if not isinstance(policy, dict) or not isinstance(policy.get("conditions", []), list):
        raise Refusal(400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.")
    if "expiration" in policy and _expiration(str(policy["expiration"])) <= now:
        raise _policy_refusal("Policy expired.")
    named = set()
    for condition in policy.get("conditions", []):
        holds, field = _condition_holds(condition, form, bucket, size)
        if not holds:
            raise _policy_refusal("Policy Condition failed: " + _shown(condition))
        if field:
            named.add(field)
    for field in form:
        if field in _UNCONDITIONED or field.startswith("x-ignore-") or field in named:
            continue
        raise _policy_refusal("Extra input fields: " + field)


def _cors_headers(self: S3Response, request, bucket_name: str) -> dict:
    """The CORS headers of the first rule allowing the request's origin and POST (moto's own
    lookup for other requests ignores the method; S3 matches it,
    https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html), or none."""
    origin = request.headers.get("Origin")
    if not origin:
        return {}
    try:
        rules = self.backend.get_bucket(bucket_name).cors
    except S3ClientError:
        return {}
    for rule in rules:
        methods = rule.allowed_methods or []
        methods = [methods] if isinstance(methods, str) else methods
        if cors_matches_origin(origin, rule.allowed_origins or []) and "POST" in methods:
            headers = {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
            if rule.exposed_headers:
                exposed = rule.exposed_headers
                headers["Access-Control-Expose-Headers"] = exposed if isinstance(exposed, str) else ", ".join(exposed)
            return headers
    return {}


def _post_object(self: S3Response, request, bucket_name: str):
    if not request.headers.get("Content-Type", "").startswith("multipart/form-data"):
        raise Refusal(
            412,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
            Condition="Bucket POST must be of the enclosure-type multipart/form-data",
        )
    form = {k.lower(): v for k, v in request.form.items()}
    if not form.get("key"):
        raise Refusal(
            400,
            "InvalidArgument",
            "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
            ArgumentName="key",
            ArgumentValue="",
        )
    if "file" not in form and not request.files:
        raise Refusal(
            400,
            "InvalidArgument",
            "POST requires exactly one file upload per request.",
            ArgumentName="file",
            ArgumentValue="0",
        )
    # moto's request set-up has read the file already (the form field or the file part).
    body = self.body if isinstance(self.body, bytes) else str(self.body).encode("utf-8")
    if "policy" in form:
        check_policy(form, bucket_name, len(body), datetime.datetime.now(datetime.timezone.utc))

    self.data["Action"] = "PutObject"
    self._authenticate_and_authorize_s3_action(bucket_name=bucket_name)
    key = self.querystring["key"][0]  # with ${filename} replaced, as moto reads it
    bucket = self.backend.get_bucket(bucket_name)
    new_key = self.backend.put_object(bucket_name, key, body, request_method="POST", disable_notification=True)
    new_key.set_metadata(metadata_from_headers(request.form))
    notifications.send_event(
        self.backend.account_id,
        notifications.S3NotificationEvent.OBJECT_CREATED_POST_EVENT,
        bucket,
        new_key,
    )

    headers = {"ETag": new_key.etag, "Location": f"/{bucket_name}/{key}"}
    if bucket.is_versioned:
        headers["x-amz-version-id"] = new_key.version_id
    return 204, headers, ""


def install() -> None:
    """Routes an object POST to a bucket through the policy check; other bucket POSTs stay moto's."""
    original = S3Response._bucket_response_post

    def bucket_response_post(self, request, bucket_name):
        self.path = self._get_path(request)
        if self.is_delete_keys():
            return original(self, request, bucket_name)
        cors = _cors_headers(self, request, bucket_name)
        try:
            status, headers, body = _post_object(self, request, bucket_name)
            return status, {**cors, **headers}, body
        except Refusal as refusal:
            return refusal.response(cors)

    S3Response._bucket_response_post = bucket_response_post
