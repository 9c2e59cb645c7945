# Type stubs of the `urisan` extension module (python/urisanmodule.c).
import os
from typing import Any, Dict, List, Literal, NotRequired, Optional, Sequence, TypedDict, Union, overload

__version__: str

Text = Union[str, bytes]
Verdict = Literal["allow", "flag", "deny"]

class ErrorInfo(TypedDict):
    code: str
    offset: int
    message: str

class Components(TypedDict):
    scheme: Optional[str]
    userinfo: Optional[str]
    host: Optional[str]
    host_type: Optional[str]
    port: Optional[str]
    path: Optional[str]
    query: Optional[str]
    fragment: Optional[str]

class Parsed(TypedDict):
    uri: str
    valid: bool
    error: Optional[ErrorInfo]
    components: Components

class Analysed(Parsed):
    host_ip: Optional[str]
    flags: List[str]

class Nested(TypedDict):
    name: str
    uri: str
    depth: int
    flags: List[str]
    host_ip: Optional[str]

class Checked(Analysed):
    verdict: Verdict
    reasons: List[str]
    deny_reasons: List[str]
    flag_reasons: List[str]
    truncated: bool
    length: int
    nested: NotRequired[List[Nested]]
    nested_capped: NotRequired[bool]

class CheckedRequest(Checked):
    request_reason: Optional[str]

class CheckedBase(Checked):
    resolved: Optional[str]
    resolve_error: Optional[ErrorInfo]

class Hit(TypedDict):
    uri: str
    part: int
    offset: int
    length: int
    context: str
    display: Optional[str]
    form: List[str]
    flags: List[str]
    verdict: Verdict
    reasons: List[str]
    deny_reasons: List[str]
    flag_reasons: List[str]
    written: NotRequired[str]

class Error(ValueError):
    code: str
    offset: Optional[int]
    input: Optional[int]

class PolicyError(Error):
    line: int
    column: int
    word: Optional[str]

class Limits(TypedDict):
    max_uri: int
    max_scheme: int
    max_userinfo: int
    max_host: int
    max_label: int
    max_segments: int

class Policy:
    def __init__(self, text: Optional[Text] = ..., name: str = ..., *,
                 profile: Optional[str] = ...) -> None: ...
    @classmethod
    def from_file(cls, path: Union[str, bytes, os.PathLike[str]], *,
                  profile: Optional[str] = ...) -> "Policy": ...
    @staticmethod
    def profiles() -> List[str]: ...
    def limits(self) -> Limits: ...

@overload
def check(uri: Text, *, policy: Optional[Policy] = ...) -> Checked: ...
@overload
def check(uri: Text, *, base: Text, policy: Optional[Policy] = ...) -> CheckedBase: ...
def check_request(*, scheme: Optional[Text] = ..., host: Union[Text, Sequence[Text], None] = ...,
                  target: Optional[Text] = ..., method: Optional[Text] = ...,
                  policy: Optional[Policy] = ...,
                  headers: Optional[Dict[str, Union[Text, Sequence[Text]]]] = ...,
                  trust: Optional[Text] = ..., strip_prefix: Optional[Text] = ...) -> CheckedRequest: ...
def analyse(uri: Text, *, policy: Optional[Policy] = ...) -> Analysed: ...
def analyze(uri: Text, *, policy: Optional[Policy] = ...) -> Analysed: ...
def parse(uri: Text, *, policy: Optional[Policy] = ...) -> Parsed: ...
def verdict(uri: Text, *, policy: Optional[Policy] = ...) -> Verdict: ...
@overload
def resolve(base: Text, ref: str, *, non_strict: bool = ...,
            above_root: Literal["clamp", "keep", "reject"] = ...,
            policy: Optional[Policy] = ...) -> str: ...
@overload
def resolve(base: Text, ref: bytes, *, non_strict: bool = ...,
            above_root: Literal["clamp", "keep", "reject"] = ...,
            policy: Optional[Policy] = ...) -> bytes: ...
@overload
def normalize(uri: str, *, policy: Optional[Policy] = ...) -> str: ...
@overload
def normalize(uri: bytes, *, policy: Optional[Policy] = ...) -> bytes: ...
def equivalent(a: Text, b: Text, *, policy: Optional[Policy] = ...) -> bool: ...
def extract(text: Text, *, policy: Optional[Policy] = ..., mail: bool = ...) -> List[Hit]: ...
def extract_mail(data: Text, *, policy: Optional[Policy] = ...) -> List[Dict[str, Any]]: ...
def version() -> str: ...
def flag_names() -> List[str]: ...
