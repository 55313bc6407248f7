"""The secrets custom tools and MCP servers send, as the store keeps them.

Secret values leave the store only through :func:`secret_values`, for the tool runner; every
other read gives names alone. The secrets holding MCP servers' headers share the table but not
the tools' view of it: custom tools neither see, list nor overwrite them. The driver's debug log
never shows a statement's parameters on the table (:func:`withhold_secret_statements`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import CustomToolInvalid, NotFoundError
from addon.logs import remember_secrets
from addon.store.models import McpServer, Secret, utcnow

_SECRETS_STATEMENT = re.compile(r"\b(?:INTO|UPDATE|FROM)\s+secrets\b", re.IGNORECASE)
DRIVER_LOGGER = "aiosqlite"


@dataclass(frozen=True, slots=True)
class SecretName:
    """A secret as any reader but the runner sees it: its name and when it last changed."""

    name: str
    updated_at: datetime


async def set_secret(session: AsyncSession, name: str, value: str) -> None:
    """Create or replace the secret ``name``."""
    if not name or not name.isidentifier():
        raise CustomToolInvalid([("name", f"{name!r} is not a valid secret name")])
    if name in await _mcp_secret_names(session):
        raise CustomToolInvalid(
            [("name", f"{name!r} holds an MCP server's header; choose another")]
        )
    remember_secrets([value])
    secret = await session.get(Secret, name)
    if secret is None:
        session.add(Secret(name=name, value=value, updated_at=utcnow()))
    else:
        secret.value = value
        secret.updated_at = utcnow()
    await session.flush()


async def delete_secret(session: AsyncSession, name: str) -> None:
    """Delete the secret ``name``; :class:`NotFoundError` if there is none."""
    result = await session.execute(delete(Secret).where(Secret.name == name))
    if not getattr(result, "rowcount", 0):
        raise NotFoundError(f"no secret named {name!r}")


async def secret_names(session: AsyncSession) -> list[SecretName]:
    """The custom tools' secrets by name, never their values (MCP servers' headers left out)."""
    query = select(Secret.name, Secret.updated_at).order_by(Secret.name)
    rows = await session.execute(query.where(Secret.name.not_in(_mcp_secret_query())))
    return [SecretName(name, updated_at) for name, updated_at in rows]


async def secret_values(session: AsyncSession) -> dict[str, str]:
    """The custom tools' secrets' values by name: for the tool runner alone, which masks them.

    MCP servers' header values are left out: custom tools never see them.
    """
    query = select(Secret.name, Secret.value).where(Secret.name.not_in(_mcp_secret_query()))
    values = {row.name: row.value for row in await session.execute(query)}
    remember_secrets(values.values())
    return values


def _mcp_secret_query() -> Select[str | None]:
    """The names of the secrets that hold MCP servers' headers (a subquery)."""
    return select(McpServer.secret_name).where(McpServer.secret_name.is_not(None))


async def _mcp_secret_names(session: AsyncSession) -> set[str]:
    return {name for name in await session.scalars(_mcp_secret_query()) if name is not None}


class SecretStatementFilter(logging.Filter):
    """Withholds the parameters of statements on the secrets table from the driver's debug log.

    aiosqlite logs every statement with its parameters at debug, which the ``trace`` log level
    lets through: setting a secret would print its value. The record stays, without them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite a record about the secrets table in place; never drops one."""
        if record.args and _SECRETS_STATEMENT.search(record.getMessage()):
            record.msg, record.args = "a statement on the secrets table (parameters withheld)", None
        return True


def withhold_secret_statements() -> None:
    """Put :class:`SecretStatementFilter` on the driver's logger, once per process."""
    logger = logging.getLogger(DRIVER_LOGGER)
    if not any(isinstance(f, SecretStatementFilter) for f in logger.filters):
        logger.addFilter(SecretStatementFilter())
