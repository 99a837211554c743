"""The communities screen: the list of communities, the highlighted one's members and
R plots, the fading list, and lifecycle actions on them."""

from brainview.tui.communities.screen import CommunitiesScreen

__all__ = ["CommunitiesScreen"]
