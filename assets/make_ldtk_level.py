#!/usr/bin/env python3
"""Writes assets/ldtk_level.ldtk, the ldtk_level example's LDtk project: one level drawn with
this project's tileset assets/tiles.png (see make_tileset.py).

Made by this project from the map below (no third-party level); only the Python standard
library is needed:
    python3 assets/make_ldtk_level.py

The JSON follows LDtk's project format (LDtk 1.5, deepnight/ldtk docs/JSON_SCHEMA.json), as
bevy_ecs_ldtk 0.15 reads it. The level has four layers, top first:
- "Entities": the Player, the Goblins (an Int field `sight_radius` on each goblin) and the
  Chests (drawn from assets/props.png, a second tileset);
- "Decor" (Tiles): pillars, drawn with the wall tile, which the tileset tags "Solid";
- "Walls" (IntGrid, drawn with the tileset): 1 wall, 2 closed door, 3 open door;
- "Floor" (Tiles): a floor tile under everything.

Map legend: '#' wall, '+' closed door, '/' open door, 'o' pillar, '@' player,
'g' goblin (sight radius 5), 'G' goblin (sight radius 7), 'c' chest, '.' floor.
"""
import json
from pathlib import Path

MAP = """
################################
#..........#.........#.........#
#..........#.........#.....g..c#
#...@......+.........#.........#
#..........#....o....+.........#
#..........#.........#.........#
#####+######.........#####/#####
#..........#....o....#.........#
#..........#####+#####.........#
#..o.......#.........#.........#
#c.........+.........+....G....#
#.......g..#.........#.........#
#..........#....g...c#.........#
################################
""".strip().splitlines()

GRID = 16
WIDTH, HEIGHT = len(MAP[0]), len(MAP)
assert all(len(row) == WIDTH for row in MAP), "every map row must have the same width"

# Tiles of assets/tiles.png: 0 floor, 1 wall, 2 closed door, 3 open door, 4 player, 5 monster.
FLOOR, WALL, CLOSED_DOOR, OPEN_DOOR, PLAYER_TILE, MONSTER_TILE = 0, 1, 2, 3, 4, 5
INT_GRID = {"#": (1, WALL), "+": (2, CLOSED_DOOR), "/": (3, OPEN_DOOR)}

TILESET_UID, SOLID_ENUM_UID, PROPS_UID = 1, 2, 3
# Tiles of assets/props.png: 0 closed chest.
CHEST_TILE = 0
FLOOR_UID, WALLS_UID, DECOR_UID, ENTITIES_UID = 10, 11, 12, 13
PLAYER_UID, GOBLIN_UID, SIGHT_FIELD_UID, CHEST_UID = 20, 21, 22, 23
LEVEL_UID = 30


def iid(n):
    return f"b1e5d0c0-0000-4000-8000-{n:012d}"


def tile(x, y, t):
    return {"px": [x * GRID, y * GRID], "src": [t * GRID, 0], "f": 0, "t": t,
            "d": [y * WIDTH + x], "a": 1}


def rect(t, tileset=TILESET_UID):
    return {"tilesetUid": tileset, "x": t * GRID, "y": 0, "w": GRID, "h": GRID}


def field_def():
    return {
        "identifier": "sight_radius", "doc": None, "__type": "Int", "uid": SIGHT_FIELD_UID,
        "type": "F_Int", "isArray": False, "canBeNull": True, "arrayMinLength": None,
        "arrayMaxLength": None, "editorDisplayMode": "NameAndValue", "editorDisplayScale": 1,
        "editorDisplayPos": "Above", "editorLinkStyle": "StraightArrow",
        "editorDisplayColor": None, "editorAlwaysShow": False, "editorShowInWorld": True,
        "editorCutLongValues": True, "editorTextSuffix": None, "editorTextPrefix": None,
        "useForSmartColor": False, "exportToToc": False, "searchable": False, "min": 0,
        "max": None, "regex": None, "acceptFileTypes": None, "defaultOverride": None,
        "textLanguageMode": None, "symmetricalRef": False, "autoChainRef": True,
        "allowOutOfLevelRef": True, "allowedRefs": "OnlySame", "allowedRefsEntityUid": None,
        "allowedRefTags": [], "tilesetUid": None,
    }


def entity_def(identifier, uid, t, color, fields, tileset=TILESET_UID):
    return {
        "identifier": identifier, "uid": uid, "tags": [], "exportToToc": False,
        "allowOutOfBounds": False, "doc": None, "width": GRID, "height": GRID,
        "resizableX": False, "resizableY": False, "minWidth": None, "maxWidth": None,
        "minHeight": None, "maxHeight": None, "keepAspectRatio": False, "tileOpacity": 1,
        "fillOpacity": 0.08, "lineOpacity": 1, "hollow": False, "color": color,
        "renderMode": "Tile", "showName": True, "tilesetId": tileset,
        "tileRenderMode": "FitInside", "tileRect": rect(t, tileset), "uiTileRect": None,
        "nineSliceBorders": [], "maxCount": 0, "limitScope": "PerLevel",
        "limitBehavior": "MoveLastOne", "pivotX": 0.5, "pivotY": 0.5, "fieldDefs": fields,
    }


def layer_def(identifier, uid, kind, tileset, int_grid_values=()):
    return {
        "__type": kind, "identifier": identifier, "type": kind, "uid": uid, "doc": None,
        "uiColor": None, "gridSize": GRID, "guideGridWid": 0, "guideGridHei": 0,
        "displayOpacity": 1, "inactiveOpacity": 1, "hideInList": False,
        "hideFieldsWhenInactive": True, "canSelectWhenInactive": True, "renderInWorldView": True,
        "pxOffsetX": 0, "pxOffsetY": 0, "parallaxFactorX": 0, "parallaxFactorY": 0,
        "parallaxScaling": True, "requiredTags": [], "excludedTags": [],
        "autoTilesKilledByOtherLayerUid": None, "uiFilterTags": [], "useAsyncRender": False,
        "intGridValues": [
            {"value": v, "identifier": name, "color": color, "tile": None, "groupUid": 0}
            for v, name, color in int_grid_values
        ],
        "intGridValuesGroups": [], "autoRuleGroups": [], "autoSourceLayerDefUid": None,
        "tilesetDefUid": tileset, "tilePivotX": 0, "tilePivotY": 0, "biomeFieldUid": None,
    }


def layer(identifier, uid, kind, tileset, int_grid=(), grid_tiles=(), auto_tiles=(),
          entities=()):
    return {
        "__identifier": identifier, "__type": kind, "__cWid": WIDTH, "__cHei": HEIGHT,
        "__gridSize": GRID, "__opacity": 1, "__pxTotalOffsetX": 0, "__pxTotalOffsetY": 0,
        "__tilesetDefUid": tileset, "__tilesetRelPath": "tiles.png" if tileset else None,
        "iid": iid(uid), "levelId": LEVEL_UID, "layerDefUid": uid, "pxOffsetX": 0,
        "pxOffsetY": 0, "visible": True, "optionalRules": [], "intGridCsv": list(int_grid),
        "autoLayerTiles": list(auto_tiles), "seed": 0, "overrideTilesetUid": None,
        "gridTiles": list(grid_tiles), "entityInstances": list(entities),
    }


def entity(n, identifier, uid, x, y, color, sight):
    fields = []
    if sight is not None:
        fields.append({"__identifier": "sight_radius", "__type": "Int", "__value": sight,
                       "__tile": None, "defUid": SIGHT_FIELD_UID,
                       "realEditorValues": [{"id": "V_Int", "params": [sight]}]})
    t = {"Player": rect(PLAYER_TILE), "Chest": rect(CHEST_TILE, PROPS_UID)}.get(
        identifier, rect(MONSTER_TILE))
    return {
        "__identifier": identifier, "__grid": [x, y], "__pivot": [0.5, 0.5], "__tags": [],
        "__tile": t, "__smartColor": color, "__worldX": x * GRID + 8,
        "__worldY": y * GRID + 8, "iid": iid(1000 + n), "width": GRID, "height": GRID,
        "defUid": uid, "px": [x * GRID + 8, y * GRID + 8], "fieldInstances": fields,
    }


def cells():
    for y, row in enumerate(MAP):
        for x, c in enumerate(row):
            yield x, y, c


def level():
    int_grid = [INT_GRID.get(c, (0, 0))[0] for _, _, c in cells()]
    walls = [tile(x, y, INT_GRID[c][1]) for x, y, c in cells() if c in INT_GRID]
    floor = [tile(x, y, FLOOR) for x, y, _ in cells()]
    decor = [tile(x, y, WALL) for x, y, c in cells() if c == "o"]
    figures = [(x, y, c) for x, y, c in cells() if c in "@gGc"]
    entities = []
    for n, (x, y, c) in enumerate(figures):
        if c == "@":
            entities.append(entity(n, "Player", PLAYER_UID, x, y, "#5FCDE4", None))
        elif c == "c":
            entities.append(entity(n, "Chest", CHEST_UID, x, y, "#E5A03C", None))
        else:
            entities.append(entity(n, "Goblin", GOBLIN_UID, x, y, "#D95763",
                                   5 if c == "g" else 7))
    return {
        "identifier": "Dungeon", "iid": iid(LEVEL_UID), "uid": LEVEL_UID, "worldX": 0,
        "worldY": 0, "worldDepth": 0, "pxWid": WIDTH * GRID, "pxHei": HEIGHT * GRID,
        "__bgColor": "#000000", "bgColor": "#000000", "useAutoIdentifier": False,
        "bgRelPath": None, "bgPos": None, "bgPivotX": 0.5, "bgPivotY": 0.5,
        "__smartColor": "#ADADB5", "__bgPos": None, "externalRelPath": None,
        "fieldInstances": [], "__neighbours": [],
        "layerInstances": [
            layer("Entities", ENTITIES_UID, "Entities", None, entities=entities),
            layer("Decor", DECOR_UID, "Tiles", TILESET_UID, grid_tiles=decor),
            layer("Walls", WALLS_UID, "IntGrid", TILESET_UID, int_grid=int_grid,
                  auto_tiles=walls),
            layer("Floor", FLOOR_UID, "Tiles", TILESET_UID, grid_tiles=floor),
        ],
    }


def project():
    tileset = {
        "__cWid": 8, "__cHei": 1, "identifier": "Dungeon_tiles", "uid": TILESET_UID,
        "relPath": "tiles.png", "embedAtlas": None, "pxWid": 8 * GRID, "pxHei": GRID,
        "tileGridSize": GRID, "spacing": 0, "padding": 0, "tags": [],
        "tagsSourceEnumUid": SOLID_ENUM_UID,
        "enumTags": [{"enumValueId": "Solid", "tileIds": [WALL]}],
        "customData": [], "savedSelections": [], "cachedPixelData": None,
    }
    props = dict(tileset, __cWid=2, identifier="Props", uid=PROPS_UID, relPath="props.png",
                 pxWid=2 * GRID, tagsSourceEnumUid=None, enumTags=[])
    solid = {
        "identifier": "Material", "uid": SOLID_ENUM_UID, "values": [
            {"id": "Solid", "tileRect": None, "tileId": None, "color": 0xB0B0B0,
             "__tileSrcRect": None},
        ], "iconTilesetUid": None, "externalRelPath": None, "externalFileChecksum": None,
        "tags": [],
    }
    return {
        "__header__": {"fileType": "LDtk Project JSON", "app": "LDtk",
                       "doc": "https://ldtk.io/json", "schema": "https://ldtk.io/files/JSON_SCHEMA.json",
                       "appAuthor": "bevy_viewshed's make_ldtk_level.py", "appVersion": "1.5.3",
                       "url": "https://ldtk.io"},
        "iid": iid(1), "jsonVersion": "1.5.3", "appBuildId": 473703, "nextUid": 100,
        "identifierStyle": "Capitalize", "toc": [], "worldLayout": "Free",
        "worldGridWidth": 256, "worldGridHeight": 256, "defaultLevelWidth": WIDTH * GRID,
        "defaultLevelHeight": HEIGHT * GRID, "defaultPivotX": 0, "defaultPivotY": 0,
        "defaultGridSize": GRID, "defaultEntityWidth": GRID, "defaultEntityHeight": GRID,
        "bgColor": "#000000", "defaultLevelBgColor": "#000000", "minifyJson": False,
        "externalLevels": False, "exportTiled": False, "simplifiedExport": False,
        "imageExportMode": "None", "exportLevelBg": False, "pngFilePattern": None,
        "backupOnSave": False, "backupLimit": 10, "backupRelPath": None,
        "levelNamePattern": "Level_%idx", "tutorialDesc": None, "customCommands": [],
        "flags": [], "dummyWorldIid": iid(2), "worlds": [],
        "defs": {
            "layers": [
                layer_def("Entities", ENTITIES_UID, "Entities", None),
                layer_def("Decor", DECOR_UID, "Tiles", TILESET_UID),
                layer_def("Walls", WALLS_UID, "IntGrid", TILESET_UID, [
                    (1, "wall", "#9A9A9A"), (2, "closed_door", "#8F563B"),
                    (3, "open_door", "#D9A066"),
                ]),
                layer_def("Floor", FLOOR_UID, "Tiles", TILESET_UID),
            ],
            "entities": [
                entity_def("Player", PLAYER_UID, PLAYER_TILE, "#5FCDE4", []),
                entity_def("Goblin", GOBLIN_UID, MONSTER_TILE, "#D95763", [field_def()]),
                entity_def("Chest", CHEST_UID, CHEST_TILE, "#E5A03C", [], PROPS_UID),
            ],
            "tilesets": [tileset, props], "enums": [solid], "externalEnums": [], "levelFields": [],
        },
        "levels": [level()],
    }


out = Path(__file__).with_name("ldtk_level.ldtk")
out.write_text(json.dumps(project(), indent=1) + "\n")
print(f"wrote {out} ({WIDTH}x{HEIGHT} tiles)")
