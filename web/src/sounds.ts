// The table's sounds: a chime when it is the player's turn and a tick when their clock runs low. Off until the
// player turns them on (kept for this browser); made with WebAudio oscillators, so the page ships no audio.
import { h } from "./dom";

const KEY = "stud.sounds";

let context: AudioContext | null = null;

export function soundsOn(): boolean {
  return localStorage.getItem(KEY) === "on";
}

/** Short tones of these pitches (Hz), one after the other. */
function play(pitches: number[], seconds = 0.12): void {
  if (!soundsOn()) return;
  // Made on the first sound after the player's click on the toggle (browsers start audio only then).
  context ??= new AudioContext();
  let at = context.currentTime;
  for (const pitch of pitches) {
    const tone = context.createOscillator();
    const volume = context.createGain();
    tone.frequency.value = pitch;
    volume.gain.setValueAtTime(0.15, at);
    volume.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    tone.connect(volume).connect(context.destination);
    tone.start(at);
    tone.stop(at + seconds);
    at += seconds;
  }
}

export const sounds = {
  yourTurn: () => play([660, 880]),
  clockLow: () => play([440], 0.08),
};

/** The on/off switch (a toggle button). */
export function soundToggle(): HTMLElement {
  const button = h("button", {
    type: "button", class: "sound-toggle", "data-testid": "sound-toggle", "aria-pressed": String(soundsOn()),
    onclick: () => {
      localStorage.setItem(KEY, soundsOn() ? "off" : "on");
      button.setAttribute("aria-pressed", String(soundsOn()));
      button.textContent = label();
      if (soundsOn()) play([880], 0.05);  // the player hears what they turned on
    },
  });
  const label = () => `Sound ${soundsOn() ? "on" : "off"}`;
  button.textContent = label();
  return button;
}
