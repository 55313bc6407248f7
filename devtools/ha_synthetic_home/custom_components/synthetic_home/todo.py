"""To-do lists: add, complete, rename and remove items; the state is the count of open items.

The fixture gives the open items as ``attributes.items`` (names) and, optionally, done ones as
``attributes.completed``; without ``items`` a numeric state makes that many generic items.
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.todo import (
    TodoItem,
    TodoItemStatus,
    TodoListEntity,
    TodoListEntityFeature,
)

from .entity import SyntheticEntity, platform_setup

T = TodoListEntityFeature


class SyntheticTodo(SyntheticEntity, TodoListEntity):
    """A shopping or chores list."""

    default_features = int(T.CREATE_TODO_ITEM | T.UPDATE_TODO_ITEM | T.DELETE_TODO_ITEM)

    def features_of(self, value: int) -> Any:
        return TodoListEntityFeature(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        names = attributes.get("items")
        if names is None:
            names = [f"item {n}" for n in range(1, int(state) + 1)] if state.isdigit() else []
        done = attributes.get("completed") or []
        self._counter = 0
        self._attr_todo_items = [
            self._item(str(name), TodoItemStatus.NEEDS_ACTION) for name in names
        ] + [self._item(str(name), TodoItemStatus.COMPLETED) for name in done]

    def _item(self, summary: str, status: TodoItemStatus) -> TodoItem:
        self._counter += 1
        return TodoItem(summary=summary, uid=f"{self.entity_id}-{self._counter}", status=status)

    async def async_create_todo_item(self, item: TodoItem) -> None:
        status = item.status or TodoItemStatus.NEEDS_ACTION
        self._attr_todo_items = [
            *(self._attr_todo_items or []),
            self._item(item.summary or "", status),
        ]
        self.async_write_ha_state()

    async def async_update_todo_item(self, item: TodoItem) -> None:
        for index, existing in enumerate(self._attr_todo_items or []):
            if existing.uid == item.uid:
                assert self._attr_todo_items is not None
                self._attr_todo_items[index] = TodoItem(
                    summary=item.summary or existing.summary,
                    uid=existing.uid,
                    status=item.status or existing.status,
                )
        self.async_write_ha_state()

    async def async_delete_todo_items(self, uids: list[str]) -> None:
        self._attr_todo_items = [i for i in self._attr_todo_items or [] if i.uid not in uids]
        self.async_write_ha_state()


async_setup_entry = platform_setup("todo", SyntheticTodo)
