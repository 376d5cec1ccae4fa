#!/usr/bin/env python3
"""Writes assets/tutorial.ldtk: an LDtk project laid out like the one bevy_ecs_ldtk's book builds
in its "Tile-based Game" tutorial, for the tests that use the LDtk integration the way that
tutorial's games do (entities and IntGrid cells registered with bundles).

Made by this project (no third-party level); only the Python standard library is needed:
    python3 assets/make_tutorial_ldtk.py

The JSON follows LDtk's project format (LDtk 1.5), as bevy_ecs_ldtk 0.15 reads it. Three levels,
each with two layers, top first:
- "Entities": the Player, the Goal and Guards (a Chest is defined, placed nowhere);
- "Wall" (IntGrid, value 1 = wall), drawn by an auto-layer rule ("a wall cell gets the wall
  tile") with this project's tileset assets/tiles.png: its tiles are auto-layer tiles, as in
  the tutorial, where the walls are painted as IntGrid cells and drawn by rules.

Map legend: '#' wall, '@' player, 'G' goal, 'k' guard, '.' floor.
"""
import json
from pathlib import Path

LEVELS = [
    """
##############
#@...#.......#
#....#..k....#
#....#####.###
#............#
###.######...#
#.....#......#
#..G..#....k.#
#.....#......#
##############
""",
    """
##################
#................#
#.######.#######.#
#.#@...#.#.....#.#
#.#....#.#..G..#.#
#.#....#.#.....#.#
#.##.###.###.###.#
#......k.........#
##################
""",
    """
############
#@.........#
#.###.####.#
#.#......#.#
#.#.####.#.#
#...#..#...#
#.#.#G.#.#.#
#.#.##.#.#.#
#.#......#k#
#.########.#
#..........#
############
""",
]

GRID = 16
TILESET_UID = 1
WALL_LAYER_UID, ENTITIES_UID = 10, 11
PLAYER_UID, GOAL_UID, GUARD_UID, CHEST_UID = 20, 21, 22, 23
RULE_GROUP_UID, RULE_UID = 40, 41
LEVEL_UID0 = 100
# Tiles of assets/tiles.png: 0 floor, 1 wall, 4 player, 5 monster, 6 goal (see make_tileset.py).
WALL_TILE, PLAYER_TILE, MONSTER_TILE = 1, 4, 5


def iid(n):
    return f"7a7a0000-0000-4000-8000-{n:012d}"


def rect(t):
    return {"tilesetUid": TILESET_UID, "x": t * GRID, "y": 0, "w": GRID, "h": GRID}


def entity_def(identifier, uid, t, color):
    return {
        "identifier": identifier, "uid": uid, "tags": [], "exportToToc": False,
        "allowOutOfBounds": False, "doc": None, "width": GRID, "height": GRID,
        "resizableX": False, "resizableY": False, "minWidth": None, "maxWidth": None,
        "minHeight": None, "maxHeight": None, "keepAspectRatio": False, "tileOpacity": 1,
        "fillOpacity": 0.08, "lineOpacity": 1, "hollow": False, "color": color,
        "renderMode": "Tile", "showName": True, "tilesetId": TILESET_UID,
        "tileRenderMode": "FitInside", "tileRect": rect(t), "uiTileRect": None,
        "nineSliceBorders": [], "maxCount": 0, "limitScope": "PerLevel",
        "limitBehavior": "MoveLastOne", "pivotX": 0, "pivotY": 0, "fieldDefs": [],
    }


def wall_rule():
    """The auto-layer rule: a cell whose value is 1 gets the wall tile."""
    return {
        "uid": RULE_UID, "active": True, "size": 1, "tileRectsIds": [[WALL_TILE]],
        "tileIds": [WALL_TILE], "alpha": 1, "chance": 1, "breakOnMatch": True,
        "pattern": [1], "flipX": False, "flipY": False, "xModulo": 1, "yModulo": 1,
        "xOffset": 0, "yOffset": 0, "tileXOffset": 0, "tileYOffset": 0,
        "tileRandomXMin": 0, "tileRandomXMax": 0, "tileRandomYMin": 0, "tileRandomYMax": 0,
        "checker": "None", "tileMode": "Single", "pivotX": 0, "pivotY": 0,
        "outOfBoundsValue": None, "invalidated": False, "perlinActive": False,
        "perlinSeed": 0, "perlinScale": 0.2, "perlinOctaves": 2,
    }


def layer_def(identifier, uid, kind, tileset, int_grid_values=(), rules=()):
    groups = []
    if rules:
        groups.append({
            "uid": RULE_GROUP_UID, "name": "walls", "color": None, "icon": None,
            "active": True, "isOptional": False, "rules": list(rules), "usesWizard": False,
            "requiredBiomeValues": [], "biomeRequirementMode": 0, "collapsed": False,
        })
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
        "intGridValuesGroups": [], "autoRuleGroups": groups, "autoSourceLayerDefUid": None,
        "tilesetDefUid": tileset, "tilePivotX": 0, "tilePivotY": 0, "biomeFieldUid": None,
    }


class Level:
    def __init__(self, index, text):
        self.index = index
        self.rows = text.strip().splitlines()
        self.width, self.height = len(self.rows[0]), len(self.rows)
        assert all(len(r) == self.width for r in self.rows), f"level {index}: ragged rows"
        self.uid = LEVEL_UID0 + index * 10

    def cells(self):
        for y, row in enumerate(self.rows):
            for x, c in enumerate(row):
                yield x, y, c

    def layer(self, identifier, uid, kind, tileset, int_grid=(), auto_tiles=(), entities=()):
        return {
            "__identifier": identifier, "__type": kind, "__cWid": self.width,
            "__cHei": self.height, "__gridSize": GRID, "__opacity": 1,
            "__pxTotalOffsetX": 0, "__pxTotalOffsetY": 0, "__tilesetDefUid": tileset,
            "__tilesetRelPath": "tiles.png" if tileset else None,
            "iid": iid(self.uid + uid), "levelId": self.uid, "layerDefUid": uid,
            "pxOffsetX": 0, "pxOffsetY": 0, "visible": True, "optionalRules": [],
            "intGridCsv": list(int_grid), "autoLayerTiles": list(auto_tiles), "seed": 0,
            "overrideTilesetUid": None, "gridTiles": [], "entityInstances": list(entities),
        }

    def entity(self, n, identifier, uid, x, y, t, color):
        return {
            "__identifier": identifier, "__grid": [x, y], "__pivot": [0, 0], "__tags": [],
            "__tile": rect(t), "__smartColor": color,
            "__worldX": self.world_x() + x * GRID, "__worldY": y * GRID,
            "iid": iid(self.uid * 100 + n), "width": GRID, "height": GRID, "defUid": uid,
            "px": [x * GRID, y * GRID], "fieldInstances": [],
        }

    def world_x(self):
        return sum(Level(i, LEVELS[i]).width + 2 for i in range(self.index)) * GRID

    def json(self):
        int_grid = [1 if c == "#" else 0 for _, _, c in self.cells()]
        auto_tiles = [
            {"px": [x * GRID, y * GRID], "src": [WALL_TILE * GRID, 0], "f": 0, "t": WALL_TILE,
             "d": [RULE_UID, y * self.width + x], "a": 1}
            for x, y, c in self.cells() if c == "#"
        ]
        kinds = {"@": ("Player", PLAYER_UID, PLAYER_TILE, "#5FCDE4"),
                 "G": ("Goal", GOAL_UID, MONSTER_TILE, "#FBF236"),
                 "k": ("Guard", GUARD_UID, MONSTER_TILE, "#D95763")}
        entities = [
            self.entity(n, *kinds[c][:2], x, y, *kinds[c][2:])
            for n, (x, y, c) in enumerate(c for c in self.cells() if c[2] in kinds)
        ]
        return {
            "identifier": f"Level_{self.index}", "iid": iid(self.uid), "uid": self.uid,
            "worldX": self.world_x(), "worldY": 0, "worldDepth": 0,
            "pxWid": self.width * GRID, "pxHei": self.height * GRID,
            "__bgColor": "#222034", "bgColor": None, "useAutoIdentifier": True,
            "bgRelPath": None, "bgPos": None, "bgPivotX": 0.5, "bgPivotY": 0.5,
            "__smartColor": "#ADADB5", "__bgPos": None, "externalRelPath": None,
            "fieldInstances": [], "__neighbours": [],
            "layerInstances": [
                self.layer("Entities", ENTITIES_UID, "Entities", None, entities=entities),
                self.layer("Wall", WALL_LAYER_UID, "IntGrid", TILESET_UID,
                           int_grid=int_grid, auto_tiles=auto_tiles),
            ],
        }


def project():
    tileset = {
        "__cWid": 8, "__cHei": 1, "identifier": "Tiles", "uid": TILESET_UID,
        "relPath": "tiles.png", "embedAtlas": None, "pxWid": 8 * GRID, "pxHei": GRID,
        "tileGridSize": GRID, "spacing": 0, "padding": 0, "tags": [],
        "tagsSourceEnumUid": None, "enumTags": [], "customData": [], "savedSelections": [],
        "cachedPixelData": None,
    }
    levels = [Level(i, text).json() for i, text in enumerate(LEVELS)]
    return {
        "__header__": {"fileType": "LDtk Project JSON", "app": "LDtk",
                       "doc": "https://ldtk.io/json", "schema": "https://ldtk.io/files/JSON_SCHEMA.json",
                       "appAuthor": "bevy_viewshed's make_tutorial_ldtk.py", "appVersion": "1.5.3",
                       "url": "https://ldtk.io"},
        "iid": iid(1), "jsonVersion": "1.5.3", "appBuildId": 473703, "nextUid": 200,
        "identifierStyle": "Capitalize", "toc": [], "worldLayout": "Free",
        "worldGridWidth": 256, "worldGridHeight": 256, "defaultLevelWidth": 256,
        "defaultLevelHeight": 256, "defaultPivotX": 0, "defaultPivotY": 0,
        "defaultGridSize": GRID, "defaultEntityWidth": GRID, "defaultEntityHeight": GRID,
        "bgColor": "#40465B", "defaultLevelBgColor": "#222034", "minifyJson": False,
        "externalLevels": False, "exportTiled": False, "simplifiedExport": False,
        "imageExportMode": "None", "exportLevelBg": True, "pngFilePattern": None,
        "backupOnSave": False, "backupLimit": 10, "backupRelPath": None,
        "levelNamePattern": "Level_%idx", "tutorialDesc": None, "customCommands": [],
        "flags": [], "dummyWorldIid": iid(2), "worlds": [],
        "defs": {
            "layers": [
                layer_def("Entities", ENTITIES_UID, "Entities", None),
                layer_def("Wall", WALL_LAYER_UID, "IntGrid", TILESET_UID,
                          [(1, "wall", "#9A9A9A")], [wall_rule()]),
            ],
            "entities": [
                entity_def("Player", PLAYER_UID, PLAYER_TILE, "#5FCDE4"),
                entity_def("Goal", GOAL_UID, MONSTER_TILE, "#FBF236"),
                entity_def("Guard", GUARD_UID, MONSTER_TILE, "#D95763"),
                # Defined, placed in no level (the configuration check warns about it).
                entity_def("Chest", CHEST_UID, MONSTER_TILE, "#DF7126"),
            ],
            "tilesets": [tileset], "enums": [], "externalEnums": [], "levelFields": [],
        },
        "levels": levels,
    }


out = Path(__file__).with_name("tutorial.ldtk")
out.write_text(json.dumps(project(), indent=1) + "\n")
print(f"wrote {out} ({len(LEVELS)} levels)")
