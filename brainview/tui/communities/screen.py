"""Communities: clusters of reflections | members + R plots; and the fading list.

The screen composes widgets that own their state — :class:`ClusteringLine` (reading,
clustering, progress, cancel), :class:`ClusterList`, :class:`MemberList`,
:class:`FadingPane`, the lifecycle actions and watch — and routes their messages.  Every
brain access goes through the app's session (:func:`brainview.tui.workers.run_service`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Header, TabbedContent, TabPane

from brainview.tui.access import brainview_app, pruning_threshold, session_of
from brainview.tui.communities.clustering import NO_AGENT, ClusteringLine
from brainview.tui.communities.clusters import ClusterList
from brainview.tui.communities.fading import FadingPane
from brainview.tui.communities.members import MemberList
from brainview.tui.footer import Footer
from brainview.tui.lifecycle import LIFECYCLE_BINDINGS, LifecycleActions, LifecycleWatch
from brainview.tui.role_gate import allowed
from brainview.tui.styles_dir import STYLES
from brainview.tui.widgets.curve_plots import DistributionPlot, ForecastPlot
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.communities import ClusterCurves, CommunityData, MemberRow
    from brainview.services.review.queue import QueueSignature
    from brainview.services.session import Session

QUIET = ("communities-check", "communities-states")
"""Reads whose failure is retried on its own and not worth a word."""
Members = tuple[int, "list[MemberRow]", int, "ClusterCurves", int]
"""``(number, members, total, curves, lifecycle mark)`` of one community."""


class CommunitiesScreen(Screen[None]):
    """Families of lessons: size, skills, R now, acceptance, policy; and what is fading.

    | Key | Action |
    |-----|--------|
    | `f` | Clusters / fading list |
    | `o` | Cycle the sort order of clusters |
    | `enter`, `i` | Open the highlighted reflection |
    | `l` | Recall lessons for words or user neurons |
    | `K` / `L` | Rescue (keep) / let go a fading reflection |
    | `j` / `k` | Down / up in the focused table |
    | `u` | Undo this session's last rescue / let-go |
    | `z` | Consolidate: plan prune/decay/policies, queue them for review |
    | `x` / `c` / `R` / `U` | Invalidate… / challenge… / reinstate / undo lifecycle |
    | `escape` | Cancel a running clustering |
    """

    CSS_PATH = [STYLES / "communities.tcss"]
    BINDINGS = [
        Binding("f", "toggle_view", "Fading", id="communities.fading", tooltip="Clusters / fading"),
        Binding("o", "sort", "Sort", id="communities.sort", tooltip="Size, weakest R, misses"),
        Binding("i", "inspect", "Inspect", id="communities.inspect", tooltip="Reflection view"),
        Binding(
            "w",
            "app.recall",
            "Recall",
            id="communities.recall",
            tooltip="Recall lessons for words or user neurons, ranked with why (not logged)",
        ),
        Binding("K", "decide('rescue')", "Rescue", id="fading.rescue", tooltip="Keep: no pruning"),
        Binding("L", "decide('let_go')", "Let go", id="fading.let_go", tooltip="May be pruned"),
        Binding("j", "nav(1)", "Down", id="communities.down", show=False),
        Binding("k", "nav(-1)", "Up", id="communities.up", show=False),
        Binding("u", "undo", "Undo", id="fading.undo", tooltip="Undo last rescue / let-go"),
        Binding("escape", "cancel", "Cancel", id="communities.cancel", tooltip="Stop clustering"),
        Binding("ctrl+r,f5", "reload", "Reload", id="communities.reload", tooltip="Read again"),
        Binding(
            "z",
            "app.consolidate",
            "Consolidate",
            id="communities.consolidate",
            tooltip="Plan a consolidation (prune, decay, policies) and queue it for review",
        ),
        *LIFECYCLE_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self._seen: QueueSignature | None = None
        """The decision queue's fingerprint the last read corresponds to."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ClusteringLine(id="progress-line")
        with TabbedContent(id="communities-tabs", initial="clusters-tab"):
            with TabPane("Clusters", id="clusters-tab"), Vertical(id="clusters-body"):
                yield ClusterList(id="cluster-pane")
                with Horizontal(id="cluster-detail"):
                    yield MemberList(id="members-pane")
                    with Vertical(id="cluster-plots"):
                        yield DistributionPlot(id="cluster-dist")
                        yield ForecastPlot(id="cluster-forecast")
            with TabPane("Fading", id="fading-tab"):
                yield FadingPane(id="fading-pane")
        yield LifecycleActions()
        yield LifecycleWatch(id="lifecycle-watch")
        yield Footer()

    # -- the parts ---------------------------------------------------------------------

    @property
    def clusters(self) -> ClusterList:
        """The list of communities."""
        return self.query_one(ClusterList)

    @property
    def member_list(self) -> MemberList:
        """The members of the highlighted community."""
        return self.query_one(MemberList)

    @property
    def fading_pane(self) -> FadingPane:
        """The fading list."""
        return self.query_one(FadingPane)

    @property
    def clustering(self) -> ClusteringLine:
        """The reading / clustering run and its progress."""
        return self.query_one(ClusteringLine)

    @property
    def tabs(self) -> TabbedContent:
        """Clusters | Fading."""
        return self.query_one(TabbedContent)

    def _fading_days(self) -> int:
        return int(session_of(self).config.reflections.fading_days)

    # -- reading -----------------------------------------------------------------------

    def on_mount(self) -> None:
        self.clusters.table.focus()
        self.call_after_refresh(self.action_reload)

    def on_screen_resume(self) -> None:
        """Back from triage (a prune or a policy may have been accepted) or another
        screen: read again, but only if decisions changed since the last read; and show
        lifecycle changes made meanwhile now, not at the next tick."""
        if self._seen is not None:
            run_service(self, _queue_signature, group="communities-check", done=self._checked)
        self.query_one(LifecycleWatch).check()

    def _checked(self, now: QueueSignature) -> None:
        if now != self._seen:
            self.action_reload()

    def action_reload(self) -> None:
        """Read the communities again (re-clustering only if the graph changed).

        The queue's fingerprint is read first, then the communities: a decision that
        lands between the two moves the fingerprint again and the next resume reads
        again (read after, it could hold a change the communities missed)."""
        run_service(self, _queue_signature, group="communities-seen", done=self._seen_then_read)

    def _seen_then_read(self, seen: QueueSignature) -> None:
        self._seen = seen
        self.clustering.start(sort=self.clusters.sort, threshold=pruning_threshold(self))
        if self.fading_pane.fading is not None:
            self.fading_pane.load(threshold=pruning_threshold(self), days=self._fading_days())

    @on(ClusteringLine.Page)
    def _page(self, message: ClusteringLine.Page) -> None:
        self.clusters.show(message.data, message.rows, message.total, message.sort)
        self.refresh_bindings()

    @on(ClusteringLine.Stopped)
    def _stopped(self, message: ClusteringLine.Stopped) -> None:
        if message.outcome == "no-agent":
            self.clusters.say(NO_AGENT)
        elif message.outcome == "done":
            if message.replaced:
                self.notify("communities updated: the graph changed since", timeout=3)
        elif message.outcome == "cancelled":
            self.notify("clustering cancelled; showing the cached communities", timeout=3)
            if self.clusters.data is None:
                self.clusters.say("clustering cancelled · ctrl+r to run it again")
        else:
            self.notify(message.outcome, title="Clustering failed", severity="error", markup=False)
        self.refresh_bindings()

    @on(ClusterList.Highlighted)
    def _cluster_highlighted(self, message: ClusterList.Highlighted) -> None:
        data = self.clusters.data
        if data is not None:
            self._load_cluster(data, message.number)

    def _load_cluster(self, data: CommunityData, number: int) -> None:
        threshold = pruning_threshold(self)

        def read(session: Session) -> Members:
            from brainview.services.communities import cluster_curves, member_rows
            from brainview.services.review.flags import lifecycle_mark

            with session.project() as project:
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                members, total = member_rows(project, data, number)
            curves = cluster_curves(data, number, session.clock(), threshold=threshold)
            return number, members, total, curves, mark

        run_service(self, read, group="communities-cluster", done=self._cluster_loaded)

    def _cluster_loaded(self, result: Members) -> None:
        number, members, total, curves, mark = result
        if number != self.clusters.number:
            return
        row = next((r for r in self.clusters.rows if r.number == number), None)
        self.member_list.show(number, row, members, total)
        self.query_one(LifecycleWatch).note(mark, "members")
        self.query_one(DistributionPlot).set_counts(curves.counts, unreviewed=curves.unreviewed)
        self.query_one(ForecastPlot).set_forecast(
            curves.mean_forecast,
            threshold=curves.threshold,
            crossing=curves.crossing,
            what="mean R",
        )

    @on(WorkFailed)
    def _quiet_failure(self, message: WorkFailed) -> None:
        if message.group == "communities-seen":  # read anyway; the next resume again
            message.stop()
            self._seen_then_read((-1, -1, -1, -1))
        elif message.group in QUIET:
            message.stop()  # transient (locked): the next check or tick asks again

    @on(ClusterList.Chosen)
    def _cluster_chosen(self) -> None:
        self.member_list.table.focus()

    @on(FadingPane.Loaded)
    def _fading_loaded(self, message: FadingPane.Loaded) -> None:
        self.query_one(LifecycleWatch).note(message.mark, "fading")
        self.refresh_bindings()

    # -- lifecycle states kept current -------------------------------------------------

    @on(LifecycleWatch.Moved)
    def _states_moved(self) -> None:
        """A reflection was challenged, invalidated or reinstated (here or by another
        process): read again only the states of the rows on screen."""
        ids = [m.id for m in self.member_list.members]
        fading = self.fading_pane.fading
        ids += [r.id for r in (fading.rows if fading is not None else [])]
        if ids:
            run_service(self, lambda s: _states_now(s, ids), group="communities-states",
                        done=self._restate)  # fmt: skip

    def _restate(self, result: tuple[int, dict[str, str]]) -> None:
        mark, states = result
        watch = self.query_one(LifecycleWatch)
        # Rows loaded after the read began (another community) keep their own mark.
        if self.member_list.restate(states):
            watch.note(mark, "members")
        if self.fading_pane.fading is not None and self.fading_pane.restate(states):
            watch.note(mark, "fading")

    def lifecycle_targets(self) -> list[str]:
        """What ``x``/``c``/``R`` act on: the highlighted reflection on the fading list or
        in the members table; from the clusters table, every member of the highlighted
        community (not only the rows on screen)."""
        if self.tabs.active == "fading-tab":
            rid = self.fading_pane.highlighted
            return [rid] if rid else []
        if self.focused is self.member_list.table:
            rid = self.member_list.highlighted
            return [rid] if rid else []
        return self.clusters.member_ids()

    def action_lifecycle(self, verb: str) -> None:
        """Invalidate or challenge the targets (the dialog shows the blast radius)."""
        self.query_one(LifecycleActions).open(verb, self.lifecycle_targets())

    def action_lifecycle_reinstate(self) -> None:
        """Reinstate the targets."""
        self.query_one(LifecycleActions).reinstate(self.lifecycle_targets())

    def action_lifecycle_undo(self) -> None:
        """Undo this session's last lifecycle batch."""
        self.query_one(LifecycleActions).undo()

    @on(LifecycleActions.Applied)
    def _lifecycle_applied(self) -> None:
        """Members changed state: read the communities again."""
        self.action_reload()

    # -- keys --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not allowed(self, action, parameters):  # the role cannot (the session refuses)
            return False
        if action == "cancel":
            return self.clustering.running
        if action in ("decide", "undo"):
            if self.tabs.active != "fading-tab":
                return False
            if action == "undo":
                return bool(self.fading_pane.decisions) or None
            fading = self.fading_pane.fading
            return bool(fading and fading.rows) or None
        if action == "sort":
            return self.tabs.active == "clusters-tab"
        return True

    def action_cancel(self) -> None:
        """Cancel the running clustering (the child process is killed)."""
        self.clustering.cancel()

    def action_toggle_view(self) -> None:
        """Switch between the clusters and the fading list."""
        tabs = self.tabs
        tabs.active = "fading-tab" if tabs.active == "clusters-tab" else "clusters-tab"

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "fading-tab":
            self.fading_pane.table.focus()
            if self.fading_pane.fading is None:
                self.fading_pane.load(threshold=pruning_threshold(self), days=self._fading_days())
        else:
            self.clusters.table.focus()
        self.refresh_bindings()

    def action_sort(self) -> None:
        """Cycle the sort order of the communities."""
        from brainview.services.communities import SORTS

        clusters = self.clusters
        sort = SORTS[(SORTS.index(clusters.sort) + 1) % len(SORTS)]
        clusters.sort = sort
        if clusters.data is not None:
            self.clustering.resort(clusters.data, sort=sort, threshold=pruning_threshold(self))

    def action_decide(self, action: str) -> None:
        """Rescue or let go the highlighted fading reflection."""
        self.fading_pane.decide(action, threshold=pruning_threshold(self), days=self._fading_days())

    def action_undo(self) -> None:
        """Withdraw this session's most recent rescue / let-go."""
        self.fading_pane.undo(threshold=pruning_threshold(self), days=self._fading_days())

    def action_inspect(self) -> None:
        """Open the reflection view for the highlighted member / fading reflection."""
        if self.tabs.active == "fading-tab":
            rid = self.fading_pane.highlighted
        else:
            members = self.member_list
            rid = members.highlighted if self.focused is members.table else None
            rid = rid or (members.members[0].id if members.members else None)
        if rid is not None:
            brainview_app(self).open_reflection(rid)

    @on(MemberList.Open)
    @on(FadingPane.Open)
    def _open(self, message: MemberList.Open | FadingPane.Open) -> None:
        brainview_app(self).open_reflection(message.reflection_id)

    def action_nav(self, step: int) -> None:
        """Vim-style: move the cursor of the focused table."""
        table = self.focused
        if isinstance(table, DataTable):
            table.action_cursor_down() if step > 0 else table.action_cursor_up()


def _queue_signature(session: Session) -> QueueSignature:
    """The decision queue's fingerprint (a prune or policy accepted in triage moves it)."""
    from brainview.services.review.queue import signature

    with session.project() as project:
        return signature(project)


def _states_now(session: Session, ids: list[str]) -> tuple[int, dict[str, str]]:
    """The lifecycle fingerprint and the states of ``ids``, one read."""
    from brainview.services.review.flags import states_now

    with session.project() as project:
        return states_now(project, ids)
