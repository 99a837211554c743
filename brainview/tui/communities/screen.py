"""Communities: clusters of reflections | members + R plots; and the fading list.

The cached partition shows at once (marked stale if the graph changed since); a
fresh clustering runs in a worker (a child process for big brains, so the UI stays
responsive) with a progress line, and ``escape`` cancels it. Every database read runs
in a thread worker that posts one of the messages below; handlers touch widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, ProgressBar, Static, TabbedContent, TabPane

from brainview.core.safe_text import one_line
from brainview.tui.app import STYLES
from brainview.tui.screens.communities_fading import FadingActions
from brainview.tui.screens.communities_messages import (
    ClusteringProgress,
    ClusteringStopped,
    ClusterLoaded,
    CommunitiesFailed,
    CommunitiesLoaded,
    FadingLoaded,
)
from brainview.tui.screens.communities_states import MemberStates
from brainview.tui.screens.invalidate import LIFECYCLE_BINDINGS, LifecycleActions
from brainview.tui.widgets.community_view import (
    FADING_COLUMNS,
    MEMBER_COLUMNS,
    cluster_cells,
    cluster_columns,
    clusters_title,
    fading_cells,
    fading_title,
    fit_widths,
    member_cells,
    members_title,
)
from brainview.tui.widgets.curve_plots import DistributionPlot, ForecastPlot
from brainview.tui.widgets.lifecycle_watch import LifecycleWatch

if TYPE_CHECKING:
    from brainview.services.communities import (
        CommunityData,
        CommunityRow,
        MemberRow,
    )
    from brainview.services.communities.curves import FadingList
    from brainview.services.communities.runner import ClusteringJob

SORT_NAMES = {"size": "size", "fading": "weakest mean R", "misses": "most misses"}


class CommunitiesScreen(LifecycleActions, FadingActions, MemberStates, Screen[None]):
    """Families of lessons: size, skills, R now, acceptance, policy; and what is fading.

    | Key | Action |
    |-----|--------|
    | `f` | Clusters ↔ fading list |
    | `o` | Cycle the sort order of clusters |
    | `enter`, `i` | Open the highlighted reflection |
    | `l` | Recall lessons for words or user neurons |
    | `K` / `L` | Rescue (keep) / let go a fading reflection |
    | `j` / `k` | Down / up in the focused table |
    | `u` | Undo this session's last rescue / let-go |
    | `z` | Consolidate: plan prune/decay/policies, queue them for review |
    | `escape` | Cancel a running clustering |
    """

    CSS_PATH = [STYLES / "communities.tcss"]
    BINDINGS = [
        Binding("f", "toggle_view", "Fading", id="communities.fading", tooltip="Clusters ↔ fading"),
        Binding("o", "sort", "Sort", id="communities.sort", tooltip="Size, weakest R, misses"),
        Binding("i", "inspect", "Inspect", id="communities.inspect", tooltip="Reflection view"),
        Binding(
            "l",
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
        self.data: CommunityData | None = None
        self.rows: list[CommunityRow] = []
        self.total = 0
        self.sort = "size"
        self.members: list[MemberRow] = []
        self.member_total = 0
        self.number: int | None = None
        """The community whose members are shown."""
        self.fading: FadingList | None = None
        self.job: ClusteringJob | None = None
        """The running clustering, if any (cancelled from the UI thread)."""
        self.running = False
        self.session_decisions: list[tuple[int, str]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="progress-line"):
            yield Static("", id="progress-text")
            yield ProgressBar(id="cluster-progress", total=100, show_eta=False)
        with TabbedContent(id="communities-tabs", initial="clusters-tab"):
            with TabPane("Clusters", id="clusters-tab"), Vertical(id="clusters-body"):
                with Vertical(id="cluster-pane"):
                    yield Static("", id="cluster-title")
                    yield DataTable(id="clusters", cursor_type="row", zebra_stripes=True)
                with Horizontal(id="cluster-detail"):
                    with Vertical(id="members-pane"):
                        yield Static("", id="members-title")
                        yield DataTable(id="members", cursor_type="row")
                    with Vertical(id="cluster-plots"):
                        yield DistributionPlot(id="cluster-dist")
                        yield ForecastPlot(id="cluster-forecast")
            with TabPane("Fading", id="fading-tab"):
                yield Static("", id="fading-title")
                yield DataTable(id="fading", cursor_type="row", zebra_stripes=True)
        yield LifecycleWatch(id="lifecycle-watch")
        yield Footer()

    def on_screen_resume(self) -> None:
        """Back from triage (a prune or a policy may have been accepted) or another
        screen: read again, but only if decisions changed since the last read; and show
        lifecycle changes made meanwhile now, not at the next tick."""
        if getattr(self, "_seen", None) is not None:
            self.check_changed()
        self.query_one(LifecycleWatch).check()

    @work(thread=True, exclusive=True, group="communities-check")
    def check_changed(self) -> None:
        """Compare the decision queue's fingerprint with the last read's (thread)."""
        from brainview.services.review.queue import signature

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                now = signature(project)
        except Exception:  # noqa: BLE001 - a failed check just leaves the screen as is
            return
        if now != self._seen:
            self._seen = now
            self.app.call_from_thread(self.action_reload)

    def on_mount(self) -> None:
        self._seen: tuple[int, int, int] | None = None
        self.query_one("#progress-line").display = False
        self.query_one("#cluster-title", Static).update(Text("reading communities…", "dim italic"))
        self.query_one("#clusters", DataTable).focus()
        self._fit_all()
        self.call_after_refresh(self.action_reload)

    # -- layout ------------------------------------------------------------------------

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_all)

    def _fit_all(self) -> None:
        for table_id, columns in (
            ("clusters", cluster_columns(self.with_spikuit)),
            ("members", MEMBER_COLUMNS),
            ("fading", FADING_COLUMNS),
        ):
            table = self.query_one(f"#{table_id}", DataTable)
            width = table.size.width or self.size.width
            widths = fit_widths(columns, width)
            if getattr(table, "_bv_widths", None) == widths:
                continue
            table._bv_widths = widths  # type: ignore[attr-defined]
            table.clear(columns=True)
            for (label, key, _w), w in zip(columns, widths, strict=True):
                table.add_column(Text(label), key=key, width=w)
        if self.rows:
            self._fill_clusters()
        if self.members:
            self._fill_members()
        if self.fading is not None:
            self._fill_fading()

    @property
    def with_spikuit(self) -> bool:
        """Whether Spikuit's own communities exist here (then shown for comparison)."""
        return self.data is not None and bool((self.data.spikuit >= 0).any())

    @property
    def threshold(self) -> float:
        """The pruning threshold from the config."""
        return float(self.app.config.reflections.pruning_threshold)  # type: ignore[attr-defined]

    # -- loading -----------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read the communities again (re-clustering only if the graph changed)."""
        self.remember_queue()
        self.load()
        if self.fading is not None:
            self.load_fading()

    @work(thread=True, exclusive=True, group="communities-check")
    def remember_queue(self) -> None:
        """Note the decision queue's fingerprint this read corresponds to (thread)."""
        from brainview.services.review.queue import signature

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                self._seen = signature(project)
        except Exception:  # noqa: BLE001
            return

    @work(thread=True, exclusive=True, group="communities-load")
    def load(self) -> None:
        """Cached partition first, then (if the graph changed) a fresh clustering."""
        from brainview.core.fsrs_math import format_ts
        from brainview.services import communities as svc
        from brainview.services.communities.runner import ClusteringCancelled, ClusteringJob

        now = self.app.now()  # type: ignore[attr-defined]
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                if project.agent is None:
                    text = "No agent brain yet: no reflections to cluster in this project."
                    self.post_message(CommunitiesFailed("no-agent", text))
                    return
                part, fresh = svc.load_partition(project)
                stale = part is not None and not fresh
                if part is not None:
                    self._post_page(project, svc.load_data(project, part, fresh, now))
                if fresh:
                    return
                self.running = True
                self.job = ClusteringJob(
                    project.agent.path,
                    now_iso=format_ts(now),
                    progress=lambda s, f: self.post_message(ClusteringProgress(s, f)),
                )
                self.post_message(ClusteringProgress("starting", 0.0))
                try:
                    part = self.job.run()
                finally:
                    self.job, self.running = None, False
                svc.store_partition(project, part)
                self._post_page(project, svc.load_data(project, part, True, now))
                self.post_message(ClusteringStopped("done", replaced=stale))
        except ClusteringCancelled:
            self.post_message(ClusteringStopped("cancelled"))
        except Exception as err:  # noqa: BLE001 - shown in the UI
            self.post_message(ClusteringStopped(one_line(str(err), 200)))

    def _post_page(self, project: Any, data: CommunityData) -> None:
        from brainview.services.communities import community_rows

        rows, total = community_rows(project, data, threshold=self.threshold, sort=self.sort)
        self.post_message(CommunitiesLoaded(data, rows, total, self.sort))

    @work(thread=True, exclusive=True, group="communities-rows")
    def resort(self, data: CommunityData) -> None:
        """Sort the communities again (labels for the new first page)."""
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                self._post_page(project, data)
        except Exception as err:  # noqa: BLE001
            self.post_message(CommunitiesFailed("communities", one_line(str(err), 200)))

    @work(thread=True, exclusive=True, group="communities-cluster")
    def load_cluster(self, data: CommunityData, number: int) -> None:
        """Members and curves of one community (thread)."""
        from brainview.services.communities import cluster_curves, member_rows
        from brainview.services.review.flags import lifecycle_mark

        now = self.app.now()  # type: ignore[attr-defined]
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                members, total = member_rows(project, data, number)
            curves = cluster_curves(data, number, now, threshold=self.threshold)
        except Exception as err:  # noqa: BLE001
            self.post_message(CommunitiesFailed("members", one_line(str(err), 200)))
            return
        self.post_message(ClusterLoaded(number, members, total, curves, mark))

    @work(thread=True, exclusive=True, group="communities-fading")
    def load_fading(self) -> None:
        """The fading list (thread)."""
        from brainview.services.communities.curves import fading
        from brainview.services.review.flags import lifecycle_mark

        cfg = self.app.config.reflections  # type: ignore[attr-defined]
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                if project.agent is None:
                    return
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                result = fading(
                    project,
                    self.app.now(),  # type: ignore[attr-defined]
                    threshold=cfg.pruning_threshold,
                    days=cfg.fading_days,
                )
        except Exception as err:  # noqa: BLE001
            self.post_message(CommunitiesFailed("fading list", one_line(str(err), 200)))
            return
        self.post_message(FadingLoaded(result, mark))

    # -- showing -----------------------------------------------------------------------

    @on(CommunitiesLoaded)
    def show_communities(self, message: CommunitiesLoaded) -> None:
        keep = self.number
        had_spikuit = self.with_spikuit
        self.data, self.rows, self.total = message.data, message.rows, message.total
        if had_spikuit != self.with_spikuit:
            self._fit_all()  # adds or drops the Spikuit column, then refills
        self._fill_clusters()
        self._title()
        numbers = [r.number for r in self.rows]
        table = self.query_one("#clusters", DataTable)
        if keep in numbers:
            table.move_cursor(row=numbers.index(keep), animate=False)
        self._after_cluster_cursor(force=True)
        self.refresh_bindings()

    def _title(self) -> None:
        data = self.data
        if data is None:
            return
        self.query_one("#cluster-title", Static).update(
            clusters_title(data, len(self.rows), self.total, SORT_NAMES[self.sort])
        )

    def _fill_clusters(self) -> None:
        table = self.query_one("#clusters", DataTable)
        spikuit = self.with_spikuit
        cursor = table.cursor_row
        table.clear()
        for row in self.rows:
            table.add_row(*cluster_cells(row, with_spikuit=spikuit), key=str(row.number))
        if self.rows:
            table.move_cursor(row=max(0, min(cursor, len(self.rows) - 1)), animate=False)

    def lifecycle_targets(self) -> list[str]:
        """What ``x``/``c``/``R`` act on: the highlighted reflection on the fading list or
        in the members table; from the clusters table, every member of the highlighted
        community (not only the rows on screen)."""
        if self._tab() == "fading-tab" or (
            isinstance(self.focused, DataTable) and self.focused.id == "members"
        ):
            rid = self._highlighted_reflection()
            return [rid] if rid else []
        if self.data is None or self.number is None:
            return []
        picked = self.data.community == self.number
        return [rid for rid, keep in zip(self.data.ids, picked, strict=True) if keep]

    def lifecycle_done(self, _result: Any) -> None:
        """Members changed state: read the communities again."""
        self.action_reload()

    @on(DataTable.RowHighlighted, "#clusters")
    def _cluster_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._after_cluster_cursor()

    def _after_cluster_cursor(self, force: bool = False) -> None:
        table = self.query_one("#clusters", DataTable)
        if self.data is None or not self.rows:
            return
        row = self.rows[max(0, min(table.cursor_row, len(self.rows) - 1))]
        if force or row.number != self.number:
            self.number = row.number
            self.load_cluster(self.data, row.number)

    @on(ClusterLoaded)
    def show_cluster(self, message: ClusterLoaded) -> None:
        if message.number != self.number:
            return
        self.members, self.member_total = message.members, message.total
        self.query_one(LifecycleWatch).note(message.mark, "members")
        self._fill_members()
        row = next((r for r in self.rows if r.number == message.number), None)
        self.query_one("#members-title", Static).update(
            members_title(message.number, row, len(self.members), message.total)
        )
        curves = message.curves
        self.query_one("#cluster-dist", DistributionPlot).set_counts(
            curves.counts, unreviewed=curves.unreviewed
        )
        self.query_one("#cluster-forecast", ForecastPlot).set_forecast(
            curves.mean_forecast,
            threshold=curves.threshold,
            crossing=curves.crossing,
            what="mean R",
        )

    def _fill_members(self) -> None:
        table = self.query_one("#members", DataTable)
        table.clear()
        for m in self.members:
            table.add_row(*member_cells(m), key=m.id)

    @on(FadingLoaded)
    def show_fading(self, message: FadingLoaded) -> None:
        self.fading = message.fading
        self.query_one(LifecycleWatch).note(message.mark, "fading")
        self._fill_fading()
        self.query_one("#fading-title", Static).update(fading_title(message.fading))
        self.refresh_bindings()

    def _fill_fading(self) -> None:
        assert self.fading is not None
        table = self.query_one("#fading", DataTable)
        cursor = table.cursor_row
        table.clear()
        for row in self.fading.rows:
            table.add_row(*fading_cells(row), key=row.id)
        if self.fading.rows:
            table.move_cursor(row=max(0, min(cursor, len(self.fading.rows) - 1)), animate=False)

    # -- clustering progress -----------------------------------------------------------

    @on(ClusteringProgress)
    def show_progress(self, message: ClusteringProgress) -> None:
        if not self.running:
            return
        self.query_one("#progress-line").display = True
        self.query_one("#progress-text", Static).update(
            Text(f"clustering: {one_line(message.stage, 70)} · esc cancels")
        )
        self.query_one("#cluster-progress", ProgressBar).update(progress=100 * message.fraction)
        self.refresh_bindings()

    @on(ClusteringStopped)
    def clustering_stopped(self, message: ClusteringStopped) -> None:
        self.query_one("#progress-line").display = False
        if message.outcome == "done":
            if message.replaced:
                self.notify("communities updated: the graph changed since", timeout=3)
        elif message.outcome == "cancelled":
            self.notify("clustering cancelled; showing the cached communities", timeout=3)
            if self.data is None:
                self.query_one("#cluster-title", Static).update(
                    Text("clustering cancelled · ctrl+r to run it again", style="italic")
                )
        else:
            self.notify(message.outcome, title="Clustering failed", severity="error", markup=False)
        self.refresh_bindings()

    def on_unmount(self) -> None:
        # Leaving the app mid-run must not leave a child process behind.
        if self.job is not None:
            self.job.cancel()

    def action_cancel(self) -> None:
        """Cancel the running clustering (the child process is killed)."""
        job = self.job
        if job is not None:
            job.cancel()
            self.query_one("#progress-text", Static).update(Text("cancelling…"))

    # -- actions -----------------------------------------------------------------------

    def _tab(self) -> str:
        return str(self.query_one("#communities-tabs", TabbedContent).active)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action in ("decide", "undo"):
            if self._tab() != "fading-tab":
                return False
            if action == "undo":
                return bool(self.session_decisions) or None
            return bool(self.fading and self.fading.rows) or None
        if action == "sort":
            return self._tab() == "clusters-tab"
        return True

    def action_toggle_view(self) -> None:
        """Switch between the clusters and the fading list."""
        tabs = self.query_one("#communities-tabs", TabbedContent)
        tabs.active = "fading-tab" if tabs.active == "clusters-tab" else "clusters-tab"

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "fading-tab":
            self.query_one("#fading", DataTable).focus()
            if self.fading is None:
                self.query_one("#fading-title", Static).update(Text("reading…", "dim italic"))
                self.load_fading()
        else:
            self.query_one("#clusters", DataTable).focus()
        self.refresh_bindings()

    def action_sort(self) -> None:
        """Cycle the sort order of the communities."""
        from brainview.services.communities import SORTS

        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        if self.data is not None:
            self.resort(self.data)

    def _highlighted_reflection(self) -> str | None:
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id in ("members", "fading"):
            ids = (
                [m.id for m in self.members]
                if focused.id == "members"
                else [r.id for r in (self.fading.rows if self.fading else [])]
            )
            if 0 <= focused.cursor_row < len(ids):
                return ids[focused.cursor_row]
        return None

    def action_inspect(self) -> None:
        """Open the reflection view for the highlighted member / fading reflection."""
        rid = self._highlighted_reflection()
        if rid is None and self.members:
            rid = self.members[0].id
        if rid is not None:
            self.app.open_reflection(rid)  # type: ignore[attr-defined]

    @on(DataTable.RowSelected, "#members, #fading")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.app.open_reflection(str(event.row_key.value))  # type: ignore[attr-defined]

    def action_nav(self, step: int) -> None:
        """Vim-style: move the cursor of the focused table."""
        table = self.focused
        if isinstance(table, DataTable):
            table.action_cursor_down() if step > 0 else table.action_cursor_up()

    @on(DataTable.RowSelected, "#clusters")
    def _cluster_selected(self, _event: DataTable.RowSelected) -> None:
        self.query_one("#members", DataTable).focus()

    @on(CommunitiesFailed)
    def failed(self, message: CommunitiesFailed) -> None:
        if message.what in ("communities", "no-agent"):
            self.query_one("#cluster-title", Static).update(Text(message.text, style="italic"))
        if message.what == "no-agent":
            return
        self.notify(
            message.text, title=f"Could not load {message.what}", severity="error", markup=False
        )
