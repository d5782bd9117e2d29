"""The reducer's message list: a linked list with id indexes, so a fold stays linear.

Starting a message, attaching a call and placing a result right after the message that
owns its call (rule A5) cost O(1) amortised, however long the conversation grows. Only a
``MESSAGES_SNAPSHOT``, which carries the whole list, rebuilds it. The list knows nothing
of events or rules: the reducer decides where a message goes, the list keeps it there
and answers lookups.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from .model import (
    ActivityMessage,
    AssistantMessage,
    Message,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
)

__all__ = ["MessageList", "Node"]

# Messages with more parallel calls than this find a call by index rather than by a scan.
_SCANNED_CALLS: Final = 8


def kept_aside(message: Message) -> bool:
    """Reasoning and activity: what a snapshot that carries none of that kind keeps."""
    # (The classes written out, not a tuple held in a global: compiled, a written-out
    # tuple is two type comparisons, a global one a lookup and a generic isinstance.)
    return isinstance(message, (ReasoningMessage, ActivityMessage))


class Node:
    """A place in the list: it keeps its place when the message in it is replaced.

    ``oprev`` and ``onext`` link the nodes of every other message (the sentinel too) in
    a second ring, in the same order: what a snapshot reads, never walking the reasoning
    and activity it keeps (see :func:`kept_aside`). The list links that ring only once
    it holds such a message: until then the two rings would be one.
    """

    __slots__ = ("message", "next", "onext", "oprev", "prev")

    def __init__(self, message: Message, prev: Node, next: Node) -> None:
        # Born linked between ``prev`` and ``next`` (they are not told), in no other ring.
        self.message = message
        self.prev = prev
        self.next = next
        self.oprev: Node = self
        self.onext: Node = self

    @staticmethod
    def ring() -> Node:
        """The list's sentinel: it links the ends and holds no message (reading it fails)."""
        return _Ring()


class _Ring(Node):
    """The sentinel's node: its ``message`` is never set."""

    __slots__ = ()

    def __init__(self) -> None:  # no message: Node.__init__ is not called
        self.prev = self.next = self
        self.oprev = self.onext = self


# The sentinel of every released list, and where unlinked nodes point: an empty ring,
# shared, that nothing is ever linked after.
_RELEASED: Final = _Ring()


class MessageList:
    """The messages of a fold in order, with their nodes by message id and by call id."""

    def __init__(self) -> None:
        # The sentinel of the ring of nodes.
        self._head = Node.ring()
        self._forget()

    def clear(self) -> None:
        """Forget every message."""
        self._unlink()
        self._head = Node.ring()
        self._forget()

    def release(self) -> None:
        """Unlink every node, for a list nobody changes again; it reads as empty after.

        The ring's links are reference cycles: a list dropped linked waits, with every
        message it holds, for a full collection of the cyclic garbage collector.
        Unlinked, it is freed as soon as it is dropped.
        """
        self._unlink()
        self._head = _RELEASED
        self._forget()

    def _unlink(self) -> None:
        # Every link is pointed at the shared sentinel, which no list is dropped with.
        head = self._head
        node = head.next
        while node is not head:
            following = node.next
            node.prev = node.next = node.oprev = node.onext = _RELEASED
            node = following
        head.prev = head.next = head.oprev = head.onext = _RELEASED

    def _forget(self) -> None:
        # The first node that held each message id (a later duplicate id joins no index).
        self._by_id: dict[str, Node] = {}
        # How many nodes the list holds, and how many of them reasoning or activity.
        self._size = 0
        self._asides = 0
        # Whether the second ring (see Node) is linked: from the first reasoning or
        # activity message on (while False, the list holds none and every node is other).
        self._ringed = False
        # The node of the assistant message that declares each call id.
        self._call_owner: dict[str, Node] = {}
        # The nodes holding a tool message, by the call id it answers: built when first
        # asked (most folds never ask), in the list's order then, kept up from then on.
        self._answers: dict[str, list[Node]] | None = None
        # The messages as last listed, kept up by appends; None once another change
        # made it stale.
        self._cached: list[Message] | None = []
        # Counts removals and changes of kind, which can cut a run of results short.
        self._layout = 0
        # Where each assistant node's run of following tool messages ended when last
        # looked up, with the layout then: walking on from there keeps placing a
        # message's k results O(k), not O(k^2).
        self._run_ends: dict[Node, tuple[int, Node]] = {}
        # Long call lists by identity: (the list, how much of it is indexed, latest
        # position of each id); see _indexed_call.
        self._call_indices: dict[int, tuple[list[ToolCall], int, dict[str, int]]] = {}

    # -- reading -------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The messages in order: a new list (walked again only after a non-append)."""
        if self._cached is None:
            self._cached = [node.message for node in self.nodes()]
        return list(self._cached)

    def listed(self) -> list[Message]:
        """The messages in order: the list kept for appends, not a copy.

        Later appends extend it; any other change leaves it as it was and lists the
        messages in a new one. So it must not be changed, and while the list is the one
        last listed, the messages it held then are still the first ones, unchanged.
        """
        if self._cached is None:
            self._cached = [node.message for node in self.nodes()]
        return self._cached

    def nodes(self) -> Iterator[Node]:
        """The nodes in order."""
        node = self._head.next
        while node is not self._head:
            yield node
            node = node.next

    def others(self) -> list[Node]:
        """The nodes of every message but reasoning and activity, in order."""
        found: list[Node] = []
        head = self._head
        if not self._ringed:
            found.extend(self.nodes())
            return found
        node = head.onext
        while node is not head:
            found.append(node)
            node = node.onext
        return found

    @property
    def others_count(self) -> int:
        """How many messages are not reasoning or activity."""
        return self._size - self._asides

    @property
    def has_asides(self) -> bool:
        """Whether the list holds reasoning or activity."""
        return self._asides > 0

    def aside_after(self, node: Node) -> tuple[Node, Node] | None:
        """The run of reasoning and activity nodes right after ``node``: (first, last).

        None when the next node is another message. Given the sentinel (:attr:`start`),
        the run the list begins with.
        """
        if not self._ringed or node.next is node.onext:
            return None
        return node.next, node.onext.prev

    @property
    def start(self) -> Node:
        """The sentinel, as :meth:`aside_after` takes it for the start of the list."""
        return self._head

    def tail_after(self, ids: set[str]) -> list[Message] | None:
        """The messages after those with these ids, when those are exactly the first ones.

        None unless the list begins with one message of each id and nothing else: a
        walk back from the end over the messages not named, never over the rest.
        """
        tail: list[Message] = []
        head = self._head
        node = head.prev
        while node is not head and node.message.id not in ids:
            tail.append(node.message)
            node = node.prev
        if self._size - len(tail) != len(ids):
            return None
        tail.reverse()
        return tail

    def __bool__(self) -> bool:
        return bool(self._by_id)

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._by_id

    def node(self, message_id: str) -> Node | None:
        """The node of the first message that had this id."""
        return self._by_id.get(message_id)

    def owner(self, call_id: str) -> Node | None:
        """The node of the assistant message that declares the call."""
        return self._call_owner.get(call_id)

    def answers(self, call_id: str) -> list[Node]:
        """The nodes of the tool messages that answer this call id (in no promised order).

        The index is built at the first question, from the list as it stands, and kept up
        from then on: a fold that never asks pays nothing per result.
        """
        answers = self._answers
        if answers is None:
            answers = self._answers = {}
            for node in self.others():  # (tool messages are never kept aside)
                message = node.message
                if isinstance(message, ToolMessage):
                    answers.setdefault(message.tool_call_id, []).append(node)
        return answers.get(call_id, [])

    @property
    def ids_unique(self) -> bool:
        """Whether no two messages share an id (a snapshot can hold two)."""
        return len(self._by_id) == self._size

    def has_call(self, call_id: str) -> bool:
        """Whether some message in the list declares the call."""
        return call_id in self._call_owner

    def call(self, call_id: str) -> ToolCall | None:
        """The current occurrence of a call (see :meth:`call_in`), if any message holds it."""
        owner = self._call_owner.get(call_id)
        return None if owner is None else self.call_in(owner, call_id)

    def call_in(self, node: Node, call_id: str) -> ToolCall | None:
        """The latest call with this id in the node's message: its current occurrence.

        An id is held twice in one message only when a call answered in an earlier run is
        declared again under the same parent (``tool-call-id-reused``): what follows
        belongs to the new occurrence, never to the answered one.
        """
        message = node.message
        if isinstance(message, AssistantMessage) and message.tool_calls:
            calls = message.tool_calls
            last = calls[-1]
            if last.id == call_id:
                return last  # (the latest call: what most lookups ask for)
            if len(calls) > _SCANNED_CALLS:
                return self._indexed_call(calls, call_id)
            for call in reversed(calls):
                if call.id == call_id:
                    return call
        return None

    def _indexed_call(self, calls: list[ToolCall], call_id: str) -> ToolCall | None:
        """:meth:`call_in` for a long list of parallel calls, without scanning it each time.

        An index of each id's latest position, extended as the list grows: the reducer
        only ever appends calls. A list that shrank, or a position that no longer holds
        the id, is scanned instead.
        """
        entry = self._call_indices.get(id(calls))
        if entry is None or entry[0] is not calls or entry[1] > len(calls):
            entry = self._call_indices[id(calls)] = (calls, 0, {})
        _, indexed, latest = entry
        for position in range(indexed, len(calls)):
            latest[calls[position].id] = position
        if indexed != len(calls):
            self._call_indices[id(calls)] = (calls, len(calls), latest)
        found = latest.get(call_id)
        if found is not None and calls[found].id == call_id:
            return calls[found]
        return next((call for call in reversed(calls) if call.id == call_id), None)

    def after_results(self, owner: Node) -> Node:
        """The last node of ``owner``'s run of following tool messages (A5)."""
        known = self._run_ends.get(owner)
        anchor = known[1] if known is not None and known[0] == self._layout else owner
        while anchor.next is not self._head and isinstance(anchor.next.message, ToolMessage):
            anchor = anchor.next
        self._run_ends[owner] = (self._layout, anchor)
        return anchor

    # -- changing ------------------------------------------------------------------------

    def append(self, message: Message) -> Node:
        """Add a message at the end."""
        return self.insert_after(self._head.prev, message)

    def insert_after(self, anchor: Node, message: Message) -> Node:
        """Add a message right after ``anchor``."""
        following = anchor.next
        node = Node(message, anchor, following)
        following.prev = anchor.next = node
        self._by_id.setdefault(message.id, node)
        self._size += 1
        appended = following is self._head
        if appended:
            cached = self._cached
            if cached is not None:
                cached.append(message)  # still the list in order: no walk to list it again
        else:
            self._cached = None
        if isinstance(message, ToolMessage):
            answers = self._answers
            if answers is not None:
                held = answers.get(message.tool_call_id)
                if held is None:
                    answers[message.tool_call_id] = [node]
                else:
                    held.append(node)
        elif isinstance(message, (ReasoningMessage, ActivityMessage)):
            self._asides += 1
            if not self._ringed:
                self._ring_others()
            return node
        if not self._ringed:
            return node
        # Appended, the node follows every other one; after another, that one.
        other = self._head.oprev if appended else self._other_before(node)
        node.oprev = other  # _link_other, inlined
        other_next = other.onext
        node.onext = other_next
        other_next.oprev = other.onext = node
        return node

    def move_after(self, anchor: Node, node: Node) -> Node:
        """Move a node (already in the list) right after ``anchor``."""
        node.prev.next = node.next
        node.next.prev = node.prev
        self._layout += 1
        self._link_after(anchor, node)
        self._cached = None
        if self._ringed and not kept_aside(node.message):
            self._unlink_other(node)
            self._link_other(self._other_before(node), node)
        return node

    def replace(self, node: Node, message: Message) -> None:
        """Put another message in a node's place (an activity taking over an id)."""
        held = node.message
        answers = self._answers
        if answers is not None:
            if isinstance(held, ToolMessage):
                answers[held.tool_call_id].remove(node)
            if isinstance(message, ToolMessage):
                answers.setdefault(message.tool_call_id, []).append(node)
        node.message = message
        if kept_aside(held) != kept_aside(message):
            if kept_aside(message):
                self._asides += 1
                if self._ringed:
                    self._unlink_other(node)
                else:
                    self._ring_others()  # (which leaves the node out)
            else:
                self._asides -= 1
                self._link_other(self._other_before(node), node)
        self._cached = None
        self._layout += 1  # a tool message turned activity ends a run of results

    def declare(self, call_id: str, owner: Node) -> None:
        """Record the node whose message declares the call."""
        self._call_owner[call_id] = owner

    def rebuild(self, messages: list[Message]) -> None:
        """Hold exactly these messages, in this order."""
        self.clear()
        self._link_in_order(messages, {})

    def respliced(self, order: list[Message], asides: dict[int, tuple[Node, Node]]) -> None:
        """Hold ``order``, in new nodes, with the reasoning and activity kept in place.

        ``order`` names each run of reasoning and activity nodes by its first message
        (``asides``: by that message's identity, the run's first and last node), which
        is linked back in whole: a snapshot's cost is what it restates, not what it
        keeps. Only the other nodes are indexed again (the kept ones declare no call
        and answer none); every message of theirs must be a new one.
        """
        by_id = self._by_id
        replaced = self.others()
        for node in replaced:
            if by_id.get(node.message.id) is node:
                del by_id[node.message.id]
        self._size -= len(replaced)
        if self._answers is not None:
            self._answers = {}  # (kept up from now on, once asked)
        self._call_owner = {}
        self._link_in_order(order, asides)
        for node in replaced:  # no cycles left to the collector (see release)
            node.prev = node.next = node.oprev = node.onext = _RELEASED
        self._layout += 1
        self._run_ends = {}
        self._call_indices = {}

    def _link_in_order(self, order: list[Message], asides: dict[int, tuple[Node, Node]]) -> None:
        """Link ``order`` between the sentinel's ends, in new nodes but the runs in ``asides``.

        The list must hold no other message (a cleared list, or one whose other nodes
        were taken out): both rings are linked here in one pass, and each new node indexed.
        """
        by_id = self._by_id
        answers = self._answers
        head = self._head
        last = other = head
        added = aside = 0
        for message in order:
            kept = asides.get(id(message)) if asides else None
            if kept is not None:
                first, end = kept
                last.next = first
                first.prev = last
                last = end
                continue
            node = Node(message, last, head)
            last.next = node
            last = node
            added += 1
            by_id.setdefault(message.id, node)
            if isinstance(message, (ReasoningMessage, ActivityMessage)):
                aside += 1
                continue
            node.oprev = other
            other.onext = node
            other = node
            if answers is not None and isinstance(message, ToolMessage):
                answers.setdefault(message.tool_call_id, []).append(node)
        last.next = head
        head.prev = last
        other.onext = head
        head.oprev = other
        self._size += added
        self._asides += aside
        self._ringed = True
        self._cached = None

    def _ring_others(self) -> None:
        """Link the second ring over the other nodes (the list's first aside is in)."""
        head = self._head
        other = head
        node = head.next
        while node is not head:
            if not kept_aside(node.message):
                node.oprev = other
                other.onext = node
                other = node
            node = node.next
        other.onext = head
        head.oprev = other
        self._ringed = True

    def _other_before(self, node: Node) -> Node:
        """The nearest node before ``node`` in the ring of other nodes (or the sentinel)."""
        found = node.prev
        while found is not self._head and kept_aside(found.message):
            found = found.prev
        return found

    def _link_other(self, anchor: Node, node: Node) -> None:
        node.oprev = anchor
        node.onext = anchor.onext
        anchor.onext.oprev = node
        anchor.onext = node

    @staticmethod
    def _unlink_other(node: Node) -> None:
        node.oprev.onext = node.onext
        node.onext.oprev = node.oprev
        node.oprev = node.onext = node

    def _link_after(self, anchor: Node, node: Node) -> Node:
        node.prev = anchor
        node.next = anchor.next
        anchor.next.prev = node
        anchor.next = node
        return node
