"""Light/dark theme that follows the system, and the presentation zoom shared by all views.

Teachers project the window: one zoom factor (Ctrl++ / Ctrl+-) must scale the editor,
the jaxpr tree and the plots together, so it lives in a small model object
(`PresentationZoom`) that those widgets follow instead of each keeping its own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

LIGHT = "light"
DARK = "dark"
SYSTEM = "system"
PREFERENCES = (SYSTEM, LIGHT, DARK)

# Pygments styles used by the editor and the jaxpr text for each scheme.
PYGMENTS_STYLES = {LIGHT: "default", DARK: "monokai"}


def is_dark_palette(palette: QPalette) -> bool:
    """A palette is dark when its window colour is darker than mid-grey."""
    return palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5


def system_scheme() -> str:
    """The system's colour scheme: the platform's answer when it has one, else the palette's."""
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else None
    if scheme == Qt.ColorScheme.Dark:
        return DARK
    if scheme == Qt.ColorScheme.Light:
        return LIGHT
    return DARK if is_dark_palette(QGuiApplication.palette()) else LIGHT


def resolve_scheme(preference: str) -> str:
    """Turn a stored preference ("system", "light", "dark") into "light" or "dark"."""
    if preference in (LIGHT, DARK):
        return preference
    return system_scheme()


def pygments_style_name(scheme: str) -> str:
    """The Pygments style that reads well on a `scheme` background."""
    return PYGMENTS_STYLES[DARK if scheme == DARK else LIGHT]


def dark_palette() -> QPalette:
    """A dark palette for platforms that cannot switch scheme themselves (offscreen, old Qt)."""
    p = QPalette()
    window, base, text = QColor(45, 45, 48), QColor(30, 30, 32), QColor(220, 220, 220)
    disabled = QColor(128, 128, 128)
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: window,
        QPalette.ColorRole.ToolTipBase: QColor(60, 60, 64),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: disabled,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: window,
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor(255, 80, 80),
        QPalette.ColorRole.Link: QColor(90, 160, 255),
        QPalette.ColorRole.Highlight: QColor(38, 110, 200),
        QPalette.ColorRole.HighlightedText: QColor(255, 255, 255),
        QPalette.ColorRole.Light: QColor(75, 75, 80),
        QPalette.ColorRole.Midlight: QColor(60, 60, 64),
        QPalette.ColorRole.Mid: QColor(50, 50, 54),
        QPalette.ColorRole.Dark: QColor(20, 20, 22),
        QPalette.ColorRole.Shadow: QColor(0, 0, 0),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def apply_scheme(app: QGuiApplication, preference: str) -> str:
    """Make the application light or dark as preferred; returns the scheme in effect.

    Qt 6.8+ can ask the platform to switch; where the platform ignores that (offscreen,
    some Linux desktops) the palette is set by hand so the result is the same.
    """
    scheme = resolve_scheme(preference)
    hints = app.styleHints()
    if preference == SYSTEM:
        if hasattr(hints, "unsetColorScheme"):
            hints.unsetColorScheme()
        app.setPalette(_standard_palette(app))
        return system_scheme()
    if hasattr(hints, "setColorScheme"):
        hints.setColorScheme(Qt.ColorScheme.Dark if scheme == DARK else Qt.ColorScheme.Light)
    if is_dark_palette(app.palette()) != (scheme == DARK):
        app.setPalette(dark_palette() if scheme == DARK else _standard_palette(app))
    return scheme


def _standard_palette(app: QGuiApplication) -> QPalette:
    style = getattr(app, "style", None)  # only QApplication has a widget style
    return style().standardPalette() if style is not None else QPalette()


class ThemeWatcher(QObject):
    """Tells the views when the effective scheme changes (system switch or new preference)."""

    sig_scheme_changed = Signal(str)
    """The effective scheme changed; the argument is "light" or "dark"."""

    def __init__(self, preference: str = SYSTEM, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if preference not in PREFERENCES:
            preference = SYSTEM
        self._preference = preference
        self._scheme = resolve_scheme(preference)
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)

    @property
    def preference(self) -> str:
        return self._preference

    @property
    def scheme(self) -> str:
        return self._scheme

    def set_preference(self, preference: str) -> None:
        """Store a new preference ("system", "light" or "dark") and re-resolve the scheme."""
        if preference not in PREFERENCES:
            raise ValueError(f"theme must be one of {', '.join(PREFERENCES)}, not {preference!r}")
        self._preference = preference
        self._update()

    def apply(self, preference: str) -> None:
        """The new preference, and the application's palette to match it."""
        self.set_preference(preference)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            apply_scheme(app, preference)

    def _on_system_scheme_changed(self, *_args: object) -> None:
        self._update()

    def _update(self) -> None:
        scheme = resolve_scheme(self._preference)
        if scheme != self._scheme:
            self._scheme = scheme
            self.sig_scheme_changed.emit(scheme)


class PresentationZoom(QObject):
    """One zoom factor for editor, tree and plots, stepped like a browser's zoom."""

    STEPS = (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
    MIN, MAX = STEPS[0], STEPS[-1]

    sig_zoom_changed = Signal(float)
    """The zoom factor changed (1.0 is the normal size)."""

    def __init__(self, factor: float = 1.0, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._factor = self._clamp(factor)

    @property
    def factor(self) -> float:
        return self._factor

    def points(self, base: float) -> float:
        """A font size of `base` points at the current zoom."""
        return base * self._factor

    def set_factor(self, factor: float) -> None:
        """Set the factor (clamped to 0.5-3.0); emits only when it changes."""
        factor = self._clamp(factor)
        if abs(factor - self._factor) > 1e-9:
            self._factor = factor
            self.sig_zoom_changed.emit(factor)

    def zoom_in(self) -> None:
        """Go to the next larger step."""
        bigger = [s for s in self.STEPS if s > self._factor + 1e-6]
        if bigger:
            self.set_factor(bigger[0])

    def zoom_out(self) -> None:
        """Go to the next smaller step."""
        smaller = [s for s in self.STEPS if s < self._factor - 1e-6]
        if smaller:
            self.set_factor(smaller[-1])

    def reset(self) -> None:
        """Back to 100 %."""
        self.set_factor(1.0)

    def _clamp(self, factor: float) -> float:
        return min(self.MAX, max(self.MIN, float(factor)))
