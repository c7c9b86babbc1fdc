// Unity's project defaults for pixel art: one editor script, Assets/Editor/AssetgenImport.cs, an
// AssetPostprocessor that gives a texture Point filtering, no compression and no mipmaps — only
// when it is imported for the first time (no .meta yet: `importSettingsMissing`) and only in the
// manifest's output folders. Every later change in the Inspector is kept, and every other texture
// of the project is left alone. Unity writes the .meta files itself: assetgen never writes one
// (tools that do break projects with GUID collisions).
import path from 'node:path';
import type { Manifest } from '../pipeline/records.js';
import { EngineSetupError } from './errors.js';

export const UNITY_SCRIPT = 'Assets/Editor/AssetgenImport.cs';

/** The script's first line: how `init` knows the file is its own (and may update it). */
export const UNITY_MARKER = '// Written by `assetgen init --engine unity`';

/**
 * The folders a manifest's outputs go in, relative to the project root (forward slashes): an
 * asset's `out` folder, or the folder of its `out` file (frames, pages and a workflow's files land
 * beside it). Sorted, each once.
 */
export function outputFolders(manifest: Pick<Manifest, 'assets'>): string[] {
  const folders = manifest.assets.map((asset) => (asset.out.type === 'folder' ? asset.out.dir : path.posix.dirname(asset.out.path)));
  return [...new Set(folders)].sort();
}

/**
 * The output folders Unity imports (under Assets/, as Unity names them: case matters), or an error
 * naming the ones it would not see.
 */
export function unityFolders(manifest: Pick<Manifest, 'assets'>): { folders: string[]; outside: string[] } {
  const all = outputFolders(manifest);
  const inAssets = (folder: string): boolean => folder === 'Assets' || folder.startsWith('Assets/');
  const folders = all.filter(inAssets);
  if (!folders.length)
    throw new EngineSetupError(
      `No output folder of the manifest is under Assets/ (${all.join(', ')}): Unity imports only what is there.`,
      "No manifest yet? Run `assetgen init` first (the starter's outputs go to assets/, which Unity does not import). Then point every asset's `out`, and `defaults.out`, at a folder under Assets/ (case matters), e.g. `out: Assets/Art/Generated/`, and run this again.",
    );
  return { folders, outside: all.filter((folder) => !inAssets(folder)) };
}

/** A C# string literal of a folder path (only printable characters reach here: paths are checked). */
const csharpString = (text: string): string => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** The editor script for these folders (exact folders: a subfolder of one is not included). */
export function unityScript(folders: readonly string[]): string {
  return `${UNITY_MARKER}; run it again after changing the
// manifest's output folders. Pixel-art import defaults for the textures assetgen generates: Point
// filtering, no compression, no mipmaps, set once, on a texture's first import (when it has no
// .meta file yet) and only in the folders below. Anything changed later in the Inspector is kept;
// every other texture is left alone. Unity writes the .meta files; assetgen never does.
using System;
using UnityEditor;
using UnityEngine;

public class AssetgenImport : AssetPostprocessor
{
    // The manifest's output folders, as Unity names them.
    static readonly string[] OutputFolders =
    {
${folders.map((folder) => `        ${csharpString(folder)},`).join('\n')}
    };

    void OnPreprocessTexture()
    {
        if (!assetImporter.importSettingsMissing) return;
        string folder = System.IO.Path.GetDirectoryName(assetPath).Replace('\\\\', '/');
        if (Array.IndexOf(OutputFolders, folder) < 0) return;
        var importer = (TextureImporter)assetImporter;
        importer.filterMode = FilterMode.Point;
        importer.textureCompression = TextureImporterCompression.Uncompressed;
        importer.mipmapEnabled = false;
    }
}
`;
}
