"""Local Jinja for custom tools: sandboxed, bounded in time and size, errors that say where.

Templates render in Jinja's :class:`ImmutableSandboxedEnvironment` (no private attributes, no
mutation of lists and dicts, no unsafe callables). The sandbox does not bound work, so every
render gets a :class:`RenderBudget` (a deadline and a size cap) checked at each place a template
can spend unbounded time or memory:

- every ``for`` loop's iterable is wrapped (an AST rewrite before compiling) so each iteration
  checks the deadline: nested loops, ``range`` and recursive loops all pass through it;
- every call (functions, filters called as functions, macros) goes through the sandbox's
  ``call``, which checks the deadline too, so recursive macros stop;
- ``+``, ``*``, ``**`` and ``%`` are intercepted, and ``~`` concatenations are wrapped, so a
  string or list cannot double its way past the cap between two checks; a list's size counts the
  characters of the strings in it, so ``[long] * n`` is refused before a ``join`` builds it;
- the ``join`` and ``replace`` filters, and the string methods that build a longer string
  (``replace``, ``join``, ``ljust``, ``rjust``, ``center``, ``zfill``, ``expandtabs``,
  ``format``), work out the size of what they would build first and refuse past the cap, and a
  ``%`` or ``format`` width or precision past the cap is refused;
- the output is streamed and stops at the cap.

A render never runs in a thread: it is synchronous, short, and stops itself (docs/DECISIONS.md).
Compiled templates are cached per source, so a tool call pays for parsing only once, and text
without markup (``units: metric``) is returned as it is, without a render.
"""

from __future__ import annotations

import json
import re
import time
import types
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache

from jinja2 import (
    StrictUndefined,
    Template,
    TemplateSyntaxError,
    UndefinedError,
    nodes,
    pass_context,
)
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from addon.custom_tools.budget import (
    GROWING_METHODS,
    Clock,
    RenderBudget,
    TemplateLimitError,
    check_method,
    check_percent,
    joined,
    replaced_size,
    size_of,
)
from addon.custom_tools.json_parts import json_value
from addon.errors import TemplateRenderError
from addon.text import JsonValue

TIME_LIMIT_S = 1.0
"""Seconds one template may take; far more than any shaping template needs."""
MAX_CHARS = 256 * 1024
"""Characters one template may produce (and the largest string or list it may build)."""
MAX_EXPONENT = 100
URL_PART_FILTER = "__url_part__"
URL_PARTS_NAME = "__url_parts__"
BUDGET_NAME = "__render_budget__"
_NATIVE = re.compile(r"^\s*\{\{(?P<expr>(?:(?!\{\{|\}\}|\{%|%\}).)*)\}\}\s*$", re.DOTALL)
_ITER_FILTER = "__budget_iter__"
_SIZE_FILTER = "__budget_size__"
_RESULT_NAME = "native_result"
_MARKUP = re.compile(r"\{\{|\{%|\{#")
_LONE_NAME = re.compile(r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$")


def _budget(context: Context) -> RenderBudget:
    budget = context.get(BUDGET_NAME)
    if not isinstance(budget, RenderBudget):  # a template cannot render without one
        raise SecurityError("render budget missing")
    return budget


@pass_context
def _budget_iter(context: Context, iterable: Iterable[object]) -> Iterator[object]:
    budget = _budget(context)
    for item in iterable:
        budget.tick()
        yield item


@pass_context
def _budget_size(context: Context, value: object) -> object:
    return _budget(context).sized(value)


@pass_context
def _bounded_join(
    context: Context, value: Iterable[object], d: str = "", attribute: str | None = None
) -> str:
    """Jinja's ``join``, refused once the joined text would pass the cap."""
    items: Iterable[object] = value
    if attribute is not None:
        items = (context.environment.getattr(item, attribute) for item in value)
    separator = str(d)
    return separator.join(joined(_budget(context), separator, items))


@pass_context
def _bounded_replace(
    context: Context, value: object, old: str, new: str, count: int | None = None
) -> str:
    """Jinja's ``replace``, refused when the result would pass the cap."""
    text, old, new = str(value), str(old), str(new)
    _budget(context).check(replaced_size(text, old, new, -1 if count is None else count))
    return text.replace(old, new, -1 if count is None else count)


@pass_context
def _url_part(context: Context, value: object) -> str:
    """Record one ``{{ }}`` output of a URL template; a placeholder stands in the text."""
    parts = context.get(URL_PARTS_NAME)
    if not isinstance(parts, list):
        raise SecurityError("URL parts missing")
    parts.append(value)
    return f"\x00{len(parts) - 1}\x00"


class _Bounded(NodeTransformer):
    """Wraps every loop's iterable and every ``~`` concatenation in the budget's checks."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, _ITER_FILTER, [], [], None, None, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Filter(node, _SIZE_FILTER, [], [], None, None, lineno=node.lineno)


class _UrlParts(NodeTransformer):
    """Wraps every ``{{ }}`` output in the URL-part filter, so each lands as one encoded part."""

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [
            child
            if isinstance(child, nodes.TemplateData)
            else nodes.Filter(child, URL_PART_FILTER, [], [], None, None, lineno=child.lineno)
            for child in node.nodes
        ]
        return node


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """The immutable sandbox plus the budget checks on calls and growing operators."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def call(__self, __context: Context, __obj: object, *args: object, **kwargs: object) -> object:
        """Check the deadline before every call, and the size a growing string method builds."""
        budget = _budget(__context)
        budget.tick()
        # The sandbox hands out ``str.format`` wrapped; the wrapper keeps the method.
        method = getattr(__obj, "__wrapped__", __obj)
        if (
            isinstance(method, types.BuiltinMethodType)
            and isinstance(getattr(method, "__self__", None), str)
            and method.__name__ in GROWING_METHODS
        ):
            args = check_method(budget, method, args)
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: object, right: object) -> object:
        """``+``, ``*``, ``**`` and ``%``, refusing results past the size cap before building."""
        budget = _budget(context)
        budget.tick()
        if operator == "**":
            if isinstance(right, int | float) and abs(right) > MAX_EXPONENT:
                raise TemplateLimitError(f"an exponent above {MAX_EXPONENT}")
            return super().call_binop(context, operator, left, right)
        if operator == "*":
            for sequence, count in ((left, right), (right, left)):
                if isinstance(sequence, str | list | tuple) and isinstance(count, int):
                    budget.check(size_of(sequence) * count)
            return super().call_binop(context, operator, left, right)
        if operator == "%":
            if isinstance(left, str):
                check_percent(budget, left)
            return budget.sized(super().call_binop(context, operator, left, right))
        return budget.sized(super().call_binop(context, operator, left, right))


def _to_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _from_json(value: str) -> JsonValue:
    loaded: JsonValue = json.loads(value)
    return loaded


def _environment() -> BoundedEnvironment:
    env = BoundedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    env.filters[_ITER_FILTER] = _budget_iter
    env.filters[_SIZE_FILTER] = _budget_size
    env.filters[URL_PART_FILTER] = _url_part
    env.filters["join"] = _bounded_join
    env.filters["replace"] = _bounded_replace
    env.filters["to_json"] = _to_json
    env.filters["from_json"] = _from_json
    # Filters that build large strings from a small number, with no use in shaping an answer.
    for name in ("center", "indent", "wordwrap", "format"):
        env.filters.pop(name, None)
    env.globals.pop("lipsum", None)
    return env


class Renderer:
    """Renders custom tools' templates; one per app, its compiled templates cached."""

    def __init__(
        self,
        *,
        time_limit: float = TIME_LIMIT_S,
        max_chars: int = MAX_CHARS,
        clock: Clock = time.monotonic,
        cache_size: int = 512,
    ) -> None:
        self.time_limit = time_limit
        self.max_chars = max_chars
        self._clock = clock
        self._env = _environment()
        self._compiled = lru_cache(maxsize=cache_size)(self._compile)

    def _compile(self, source: str, url_parts: bool = False) -> Template:
        tree = _Bounded().visit(self._env.parse(source))
        if url_parts:
            tree = _UrlParts().visit(tree)
        tree.set_environment(self._env)
        code = self._env.compile(tree)
        return self._env.template_class.from_code(
            self._env, code, self._env.make_globals(None), None
        )

    def _template(self, source: str, field: str, url_parts: bool = False) -> Template:
        try:
            return self._compiled(source, url_parts)
        except TemplateSyntaxError as err:
            raise TemplateRenderError(field, err.lineno, err.message or str(err)) from err

    def _budget(self) -> RenderBudget:
        return RenderBudget(self._clock() + self.time_limit, self.max_chars, self._clock)

    def render(self, source: str, variables: Mapping[str, object], field: str) -> str:
        """Render ``source`` to text; raise TemplateRenderError naming ``field`` and the line.

        Text without Jinja markup is its own rendering: returned as it is, without a render.
        """
        if _MARKUP.search(source) is None:
            return source
        template = self._template(source, field)
        return self._produce(template, {**variables, BUDGET_NAME: self._budget()}, field)

    def _produce(self, template: Template, variables: Mapping[str, object], field: str) -> str:
        """The template's output, streamed and stopped at the size cap; errors name ``field``."""
        chunks: list[str] = []
        produced = 0
        try:
            for chunk in template.generate(variables):
                produced += len(chunk)
                if produced > self.max_chars:
                    raise TemplateLimitError(f"output longer than {self.max_chars} characters")
                chunks.append(chunk)
        except Exception as err:
            raise _render_error(err, field) from err
        return "".join(chunks)

    def render_parts(
        self, source: str, variables: Mapping[str, object], field: str
    ) -> tuple[str, list[object]]:
        """Render with each ``{{ }}`` output replaced by a NUL-framed index; the outputs in order.

        The rest kind builds its URL from this: the literal text is the definition's, each
        output is encoded as one part where it lands (a path segment, a query value).
        """
        if _MARKUP.search(source) is None:
            return source, []
        template = self._template(source, field, url_parts=True)
        parts: list[object] = []
        variables = {**variables, BUDGET_NAME: self._budget(), URL_PARTS_NAME: parts}
        return self._produce(template, variables, field), parts

    def render_native(self, source: str, variables: Mapping[str, object], field: str) -> object:
        """Render to a value: a lone ``{{ expr }}`` keeps its type (a number stays a number)."""
        lone = _LONE_NAME.match(source)
        if lone is not None and lone.group(1) in variables:
            # ``{{ city }}`` is the variable itself, as Jinja would return it, without a render.
            value = variables[lone.group(1)]
            try:
                self._budget_for_value(value)
            except TemplateLimitError as err:
                raise TemplateRenderError(field, 1, str(err)) from err
            return value
        match = _NATIVE.match(source)
        if match is None:
            return self.render(source, variables, field)
        wrapped = f"{{% set {_RESULT_NAME} = ({match.group('expr')}) %}}"
        template = self._template(wrapped, field)
        try:
            module = template.make_module({**variables, BUDGET_NAME: self._budget()})
            value = getattr(module, _RESULT_NAME)
            if isinstance(value, StrictUndefined):
                str(value)  # raises the UndefinedError naming the variable
            self._budget_for_value(value)
        except Exception as err:
            raise _native_error(self._env, field) from err
        return value

    def _budget_for_value(self, value: object) -> None:
        if isinstance(value, str | list | tuple | dict) and len(value) > self.max_chars:
            raise TemplateLimitError(f"a value longer than {self.max_chars} characters")

    def render_tree(
        self, value: JsonValue, variables: Mapping[str, object], field: str
    ) -> JsonValue:
        """Render every string inside ``value`` (mappings, lists), keeping the structure.

        What a template produced is made JSON as it is sent: a tuple a list, a mapping a
        dict, anything else its text (as a JSON body or Home Assistant's message would say it).
        """
        if isinstance(value, str):
            return json_ready(self.render_native(value, variables, field))
        if isinstance(value, Mapping):
            return {
                str(key): self.render_tree(item, variables, f"{field}.{key}")
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [
                self.render_tree(item, variables, f"{field}.{index}")
                for index, item in enumerate(value)
            ]
        return value


def json_ready(value: object) -> JsonValue:
    """A rendered value as JSON: mappings and sequences kept, anything else its text."""
    return json_value(value, otherwise=str)


def _native_error(env: BoundedEnvironment, field: str) -> TemplateRenderError:
    """The error being handled, its traceback rewritten to template lines by Jinja."""
    try:
        env.handle_exception()
    except Exception as rewritten:
        failure = _render_error(rewritten, field)
        line = failure.line or 1
        return TemplateRenderError(field, line, failure.cause)


def _render_error(err: Exception, field: str) -> TemplateRenderError:
    if isinstance(err, TemplateRenderError):
        return err
    if isinstance(err, TemplateSyntaxError):
        return TemplateRenderError(field, err.lineno, err.message or str(err))
    line = _template_line(err.__traceback__)
    if isinstance(err, TemplateLimitError):
        return TemplateRenderError(field, line, str(err))
    if isinstance(err, SecurityError):
        return TemplateRenderError(field, line, f"not allowed: {err}")
    if isinstance(err, UndefinedError):
        return TemplateRenderError(field, line, str(err))
    if isinstance(err, RecursionError):
        return TemplateRenderError(field, line, "recursion too deep")
    return TemplateRenderError(field, line, f"{type(err).__name__}: {err}")


def _template_line(traceback: types.TracebackType | None) -> int | None:
    """The template line of the innermost template frame (Jinja rewrites tracebacks to them)."""
    line = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == "<template>":
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line
