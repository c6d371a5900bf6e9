// A small element builder, so views read as the markup they make.

type Attributes = Record<string, string | number | boolean | undefined | EventListener>;
type Child = Node | string | null | undefined | false;

/** `h("button", {class: "x", onclick: f}, "text")`: attributes starting with "on" are listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Replaces an element's content. */
export function fill(element: Element, ...children: (Child | Child[])[]): void {
  element.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
}

/** Like fill, and the control that had the focus inside (by its data-testid) has it again after. */
export function redraw(element: Element, ...children: (Child | Child[])[]): void {
  const focused = document.activeElement;
  const testid = focused instanceof HTMLElement && element.contains(focused) ? focused.dataset.testid : undefined;
  fill(element, ...children);
  if (testid) element.querySelector<HTMLElement>(`[data-testid="${CSS.escape(testid)}"]`)?.focus();
}
