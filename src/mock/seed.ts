// The seeded catalogue: agents and saved workflows of different lengths.

export interface AgentRecord {
  id: string;
  name: string;
  kind: 'image' | 'video';
  description: string;
}

export const AGENTS: readonly AgentRecord[] = [
  { id: 'sprite-artist', name: 'Sprite Artist', kind: 'image', description: 'Pixel-art sprites and characters.' },
  { id: 'tile-smith', name: 'Tile Smith', kind: 'image', description: 'Seamless tiles and terrain textures.' },
  { id: 'icon-forge', name: 'Icon Forge', kind: 'image', description: 'Item and UI icons.' },
  { id: 'motion-director', name: 'Motion Director', kind: 'video', description: 'Short looping video clips and effects.' },
];

export const DEFAULT_VIDEO_AGENT = 'motion-director';

export interface WorkflowNodeRecord {
  id: string;
  type: 'prompt' | 'image' | 'upscale' | 'palette' | 'text';
  label: string;
  overridable: boolean;
  /** Default prompt of an overridable node. */
  prompt?: string;
}

export interface WorkflowRecord {
  id: string;
  name: string;
  description: string;
  /** The agent that renders the workflow's image nodes. */
  agentId: string;
  nodes: WorkflowNodeRecord[];
}

export const WORKFLOWS: readonly WorkflowRecord[] = [
  {
    id: 'wf_sprite_sheet',
    name: 'Sprite sheet',
    description: 'A character prompt, rendered as idle and walk frames.',
    agentId: 'sprite-artist',
    nodes: [
      { id: 'character', type: 'prompt', label: 'Character prompt', overridable: true, prompt: 'a knight in silver armour' },
      { id: 'idle', type: 'image', label: 'Idle frames', overridable: false },
      { id: 'walk', type: 'image', label: 'Walk cycle', overridable: false },
    ],
  },
  {
    id: 'wf_tileset',
    name: 'Tileset',
    description: 'A themed set of ground, wall and decoration tiles.',
    agentId: 'tile-smith',
    nodes: [
      { id: 'theme', type: 'prompt', label: 'Theme prompt', overridable: true, prompt: 'mossy dungeon' },
      { id: 'palette', type: 'palette', label: 'Palette', overridable: false },
      { id: 'ground', type: 'image', label: 'Ground tiles', overridable: false },
      { id: 'walls', type: 'image', label: 'Wall tiles', overridable: false },
    ],
  },
  {
    id: 'wf_character_turnaround',
    name: 'Character turnaround',
    description: 'Front, side and back views of one character, with a style prompt.',
    agentId: 'sprite-artist',
    nodes: [
      { id: 'character', type: 'prompt', label: 'Character prompt', overridable: true, prompt: 'a goblin merchant' },
      { id: 'style', type: 'prompt', label: 'Style prompt', overridable: true, prompt: '16-bit pixel art' },
      { id: 'front', type: 'image', label: 'Front view', overridable: false },
      { id: 'side', type: 'image', label: 'Side view', overridable: false },
      { id: 'back', type: 'image', label: 'Back view', overridable: false },
      { id: 'sheet', type: 'text', label: 'Turnaround notes', overridable: false },
    ],
  },
];
