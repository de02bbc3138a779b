from enum import StrEnum


class DeliveryError(StrEnum):
    CONNECT = "connect"
    DNS = "dns"
    NO_SECRET = "no_secret"
    OTHER = "other"
    REFUSED_TARGET = "refused_target"
    TIMEOUT = "timeout"
    TLS = "tls"

    def __str__(self) -> str:
        return str(self.value)
