#!/usr/bin/env python3
"""Writes the Tiled maps of assets/tiled/: the tiled_map example's map and the maps, tileset and
world the Tiled tests load through bevy_ecs_tiled. Every map is drawn with this project's
tileset assets/tiles.png (see make_tileset.py).

Made by this project from the maps below (no third-party level); only the Python standard
library is needed:
    python3 assets/make_tiled_maps.py

The files are written as the Tiled editor (1.11) writes them: TMX maps with CSV layer data,
an external TSX tileset, tilesets embedded in maps, object layers, a group layer, an infinite
map in 16x16 chunks, a `.world` file placing four maps side by side, and a map with the
mistakes a game's warnings are for (odd_cases.tmx), and a room with decorations drawn beside
its tile layers (decorated.tmx).

The tileset's tiles (assets/tiles.png): 0 floor, 1 wall, 2 closed door, 3 open door,
4 player, 5 monster, 6 guard, 7 plain white. What blocks sight is set on them as a game would
in Tiled:
- tile 1 (wall) has the bool property `block_line_of_sight` = true;
- tile 2 (closed door) has the class `Door`, which the tests list in `TiledOpacity`;
- in the maps' embedded "props" tileset, tile 7 (a pillar) has the custom type
  `bevy_viewshed::Opaque` (the reflected component, through bevy_ecs_tiled's
  `user_properties`).

Map legend: '.' floor, '#' wall, 'D' closed door tile, 'o' pillar (props tileset), ' ' no
tile; objects (on the floor): '@' player (class Player), 'g' guard, 't' torch, 's' scout
(custom-type RevealsFog and Team), '|' a door object (a closed door tile object with
`block_line_of_sight`), 'B' a boulder (a rectangle object over the 2x2 tiles of its 'B's).
"""
from pathlib import Path

OUT = Path(__file__).parent / "tiled"
TILE = 16
TSX_FIRSTGID = 1
PROPS_FIRSTGID = 9
FLOOR, WALL, CLOSED_DOOR, PLAYER, GUARD = 0, 1, 2, 4, 6
# A pillar: the wall's image, in the props tileset whose tile carries our `Opaque` custom type.
PILLAR = WALL
OPAQUE_TYPE = "bevy_viewshed::Opaque"
REVEALS_FOG_TYPE = "bevy_viewshed::RevealsFog"
TEAM_TYPE = "bevy_viewshed::Team"

ROOM = """
####################
#.........#........#
#..@......#...g....#
#.........D........#
#....o....#........#
#.........#...t....#
#####.#####........#
#..................#
#.......BB.........#
#.......BB....s....#
#..................#
#.....|............#
#..................#
####################
"""

ISO = """
##############
#............#
#..@.....#...#
#........#...#
#...##...#...#
#............#
#......o.....#
#.....###....#
#............#
#...g....D...#
#............#
##############
"""

# The same shape of room on an isometric map taller than it is wide (bevy_ecs_tiled 0.13.4
# places objects right only on maps exactly two tiles wider than tall, as ISO is).
ISO_TALL = """
##########
#........#
#..@.....#
#........#
#...##...#
#........#
#......o.#
#.....##.#
#........#
#...g....#
#......D.#
#........#
#........#
##########
"""

HEX = """
##############
#............#
#..@.....#...#
#........#...#
#...##...#...#
#............#
#......o.....#
#.....###....#
#............#
#...g....D...#
#............#
##############
"""

# Tiled tiles (-16, -16) to (15, 15): the chunks with nothing in them are left out.
INFINITE = """
################
#..............#
#..@......#....#
#.........#....#
#....##...#....#
#..........................#####
#.........#..................g.#
#.........#....#...............#
#.........#....#...............#
#.........######...............#
#..............#...............#
#..............D...............#
#..............#...............#
#..............#...............#
#..............#...............#
#..............#################
#..............#
#..............#
#....o.........#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
#..............#
################
"""

STAGGERED = """
########
#......#
#..@...#
#......#
#......#
#......#
#......#
########
"""

# Four maps of 12x10 tiles, two by two, in one world.
WORLD = """
########################
#..........#...........#
#..........#...........#
#.......@..D...........#
#..........#...........#
#..........#...........#
#..........#...........#
#............g.........#
#..........#...........#
#####.######.####.######
#..........#...........#
#..........#...........#
#..........#...........#
#...o......D...........#
#..........#...........#
#..........#.......@...#
#..........#...........#
#......................#
#..........#...........#
########################
"""

# The tiled_map example's map.
EXAMPLE = """
################################
#..........#.........#.........#
#..........#.........#.....g...#
#...@......|.........#.........#
#..........#....o....|.........#
#..........#.........#.........#
#####|######.........#####.#####
#..........#....o....#.........#
#..........#####|#####.........#
#..o.......#.........#.........#
#..........|.........|....g....#
#.......g..#.........#.........#
#..........#....o....#.........#
################################
"""


def rows(text):
    return text.strip("\n").splitlines()


def prop(name, kind, value):
    return f'    <property name="{name}" type="{kind}" value="{value}"/>\n'


def class_prop(name, type_path, members=""):
    if not members:
        return f'    <property name="{name}" type="class" propertytype="{type_path}"/>\n'
    return (
        f'    <property name="{name}" type="class" propertytype="{type_path}">\n'
        f"     <properties>\n{members}     </properties>\n    </property>\n"
    )


def class_attr(cls):
    # Tiled writes an object's or a tile's class as its `type` attribute, and none when unset.
    return f' type="{cls}"' if cls else ""


def properties(items):
    if not items:
        return ""
    return "   <properties>\n" + "".join(items) + "   </properties>\n"


def tileset_tiles(with_types):
    """The <tile> elements of the tileset: what blocks sight, as a game sets it in Tiled."""
    if not with_types:
        return ""
    return (
        f' <tile id="{WALL}">\n  <properties>\n'
        f'   <property name="block_line_of_sight" type="bool" value="true"/>\n'
        f"  </properties>\n </tile>\n"
        f' <tile id="{CLOSED_DOOR}" type="Door"/>\n'
    )


def props_tileset(firstgid):
    """An embedded tileset whose pillar tile has our reflected `Opaque` as a custom type."""
    return (
        f' <tileset firstgid="{firstgid}" name="props" tilewidth="{TILE}" tileheight="{TILE}" '
        f'tilecount="8" columns="8">\n'
        f'  <image source="../tiles.png" width="128" height="16"/>\n'
        f'  <tile id="{PILLAR}">\n   <properties>\n'
        f'    <property name="Opaque" type="class" propertytype="{OPAQUE_TYPE}"/>\n'
        f"   </properties>\n  </tile>\n </tileset>\n"
    )


def embedded_tiles_tileset(firstgid):
    """The tiles.tsx tileset embedded in a map (as Tiled writes it after "Embed Tileset")."""
    return (
        f' <tileset firstgid="{firstgid}" name="tiles" tilewidth="{TILE}" tileheight="{TILE}" '
        f'tilecount="8" columns="8">\n'
        f'  <image source="../tiles.png" width="128" height="16"/>\n'
        + "".join(" " + line + "\n" for line in tileset_tiles(True).splitlines())
        + " </tileset>\n"
    )


def write_tsx():
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<tileset version="1.10" tiledversion="1.11.2" name="tiles" '
        f'tilewidth="{TILE}" tileheight="{TILE}" tilecount="8" columns="8">\n'
        ' <image source="../tiles.png" width="128" height="16"/>\n'
        + tileset_tiles(True)
        + "</tileset>\n"
    )
    (OUT / "tiles.tsx").write_text(text)


def gid_of(char, layer):
    if layer == "Floor":
        return 0 if char == " " else TSX_FIRSTGID + FLOOR
    return {
        "#": TSX_FIRSTGID + WALL,
        "D": TSX_FIRSTGID + CLOSED_DOOR,
        "o": PROPS_FIRSTGID + PILLAR,
    }.get(char, 0)


def csv(grid, layer):
    lines = [",".join(str(gid_of(c, layer)) for c in row) for row in grid]
    return ",\n".join(lines) + "\n"


class Objects:
    """The objects of a map, written as Tiled writes them, with ids from 1."""

    def __init__(self, geometry):
        self.geometry = geometry
        self.items = []

    def add(self, text):
        self.items.append(text)

    def next_id(self):
        return len(self.items) + 1

    def point(self, name, cls, col, row, props):
        x, y = self.geometry(col, row)
        self.add(
            f'  <object id="{self.next_id()}" name="{name}"{class_attr(cls)} x="{x:g}" y="{y:g}">\n'
            + properties(props)
            + "   <point/>\n  </object>\n"
        )

    def tile(self, name, cls, gid, col, row, props):
        # A tile object's position is its bottom-left corner (orthogonal maps).
        x, y = col * TILE, (row + 1) * TILE
        self.add(
            f'  <object id="{self.next_id()}" name="{name}"{class_attr(cls)} gid="{gid}" '
            f'x="{x}" y="{y}" width="{TILE}" height="{TILE}">\n'
            + properties(props)
            + "  </object>\n"
        )

    def rect(self, name, col, row, width, height, props):
        self.add(
            f'  <object id="{self.next_id()}" name="{name}" x="{col * TILE}" y="{row * TILE}" '
            f'width="{width * TILE}" height="{height * TILE}">\n' + properties(props) + "  </object>\n"
        )

    def xml(self, layer_id, name="Actors"):
        if not self.items:
            return ""
        return f' <objectgroup id="{layer_id}" name="{name}">\n' + "".join(self.items) + " </objectgroup>\n"


def ortho_center(col, row):
    return (col + 0.5) * TILE, (row + 0.5) * TILE


def actors(grid, objects, tile_objects=True):
    """The objects the legend places, each on its tile."""
    seen_boulder = False
    for row, line in enumerate(grid):
        for col, c in enumerate(line):
            if c == "@":
                if tile_objects:
                    objects.tile("Player", "Player", TSX_FIRSTGID + PLAYER, col, row,
                                 [prop("sight_radius", "int", 7)])
                else:
                    objects.point("Player", "Player", col, row, [prop("sight_radius", "int", 7)])
            elif c == "g":
                guard = [
                    prop("sight_radius", "int", 4),
                    prop("team", "int", 1),
                    prop("can_be_spotted", "bool", "true"),
                    prop("hides_outside_view", "bool", "true"),
                    prop("leaves_ghost", "bool", "true"),
                ]
                if tile_objects:
                    objects.tile("Guard", "Guard", TSX_FIRSTGID + GUARD, col, row, guard)
                else:
                    objects.point("Guard", "Guard", col, row, guard)
            elif c == "t":
                objects.point("Torch", "", col, row, [prop("light_radius", "int", 3)])
            elif c == "s":
                objects.point("Scout", "", col, row, [
                    prop("sight_radius", "int", 5),
                    class_prop("RevealsFog", REVEALS_FOG_TYPE),
                    class_prop("Team", TEAM_TYPE, '      <property name="0" type="int" value="2"/>\n'),
                ])
            elif c == "|":
                objects.tile("Door", "", TSX_FIRSTGID + CLOSED_DOOR, col, row,
                             [prop("block_line_of_sight", "bool", "true")])
            elif c == "B" and not seen_boulder:
                seen_boulder = True
                objects.rect("Boulder", col, row, 2, 2, [prop("block_line_of_sight", "bool", "true")])


def map_xml(attrs, tilesets, body, next_layer, next_object):
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<map version="1.10" tiledversion="1.11.2" {attrs} '
        f'nextlayerid="{next_layer}" nextobjectid="{next_object}">\n'
        + tilesets
        + body
        + "</map>\n"
    )


def tile_layers(grid, group=True):
    """A "Floor" layer, then a "Walls" layer (in a "Structure" group layer when `group`)."""
    w, h = len(grid[0]), len(grid)
    floor = (
        f' <layer id="1" name="Floor" width="{w}" height="{h}">\n'
        f'  <data encoding="csv">\n{csv(grid, "Floor")}</data>\n </layer>\n'
    )
    pad = "  " if group else " "
    walls = (
        f'{pad}<layer id="3" name="Walls" width="{w}" height="{h}">\n'
        f'{pad} <data encoding="csv">\n{csv(grid, "Walls")}</data>\n{pad}</layer>\n'
    )
    if group:
        return floor + ' <group id="2" name="Structure">\n' + walls + " </group>\n"
    return floor + walls


def write_ortho(name, text, external=True, tile_objects=True):
    grid = rows(text)
    w, h = len(grid[0]), len(grid)
    objects = Objects(ortho_center)
    actors(grid, objects, tile_objects)
    tilesets = (
        f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n'
        if external
        else embedded_tiles_tileset(TSX_FIRSTGID)
    ) + props_tileset(PROPS_FIRSTGID)
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
    )
    body = tile_layers(grid) + objects.xml(4)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 5, objects.next_id()))


def write_iso(name, text):
    grid = rows(text)
    w, h = len(grid[0]), len(grid)
    # Isometric object coordinates: both axes in tile heights along the tile axes.
    objects = Objects(lambda col, row: ((col + 0.5) * TILE, (row + 0.5) * TILE))
    actors(grid, objects, tile_objects=False)
    attrs = (
        f'orientation="isometric" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE * 2}" tileheight="{TILE}" infinite="0"'
    )
    tilesets = embedded_tiles_tileset(TSX_FIRSTGID) + props_tileset(PROPS_FIRSTGID)
    body = tile_layers(grid, group=False) + objects.xml(4)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 5, objects.next_id()))


def hex_center(axis, index, col, row):
    """The centre of a tile of a hexagonal map whose tiles are TILE x TILE with sides of
    TILE / 2, as Tiled lays them out."""
    step = TILE * 3 / 4
    shifted = (row if axis == "y" else col) % 2 == (1 if index == "odd" else 0)
    if axis == "y":
        x = col * TILE + (TILE / 2 if shifted else 0) + TILE / 2
        y = row * step + TILE / 2
    else:
        x = col * step + TILE / 2
        y = row * TILE + (TILE / 2 if shifted else 0) + TILE / 2
    return x, y


def write_hex(name, text, axis, index):
    grid = rows(text)
    w, h = len(grid[0]), len(grid)
    objects = Objects(lambda col, row: hex_center(axis, index, col, row))
    actors(grid, objects, tile_objects=False)
    attrs = (
        f'orientation="hexagonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0" hexsidelength="{TILE // 2}" '
        f'staggeraxis="{axis}" staggerindex="{index}"'
    )
    tilesets = f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n' + props_tileset(
        PROPS_FIRSTGID
    )
    body = tile_layers(grid) + objects.xml(4)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 5, objects.next_id()))


def write_infinite(name, text):
    """An infinite orthogonal map: tiles (-16, -16) to (15, 15) in chunks of 16x16, chunks
    without tiles left out (as Tiled leaves them out)."""
    grid = [line.ljust(32) for line in rows(text)]
    origin = -16

    def layer(layer_id, layer_name):
        chunks = []
        for cy in range(0, 32, 16):
            for cx in range(0, 32, 16):
                block = [grid[y][cx:cx + 16] for y in range(cy, cy + 16)]
                if all(gid_of(c, layer_name) == 0 for line in block for c in line):
                    continue
                chunks.append(
                    f'   <chunk x="{cx + origin}" y="{cy + origin}" width="16" height="16">\n'
                    + csv(block, layer_name)
                    + "</chunk>\n"
                )
        return (
            f' <layer id="{layer_id}" name="{layer_name}" width="32" height="32" '
            f'startx="{origin}" starty="{origin}">\n  <data encoding="csv">\n'
            + "".join(chunks)
            + "  </data>\n </layer>\n"
        )

    objects = Objects(lambda col, row: ((col + origin + 0.5) * TILE, (row + origin + 0.5) * TILE))
    actors(grid, objects, tile_objects=False)
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="32" height="32" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="1"'
    )
    tilesets = f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n' + props_tileset(
        PROPS_FIRSTGID
    )
    body = layer(1, "Floor") + layer(2, "Walls") + objects.xml(3)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 4, objects.next_id()))


def write_staggered(name, text):
    grid = rows(text)
    w, h = len(grid[0]), len(grid)
    attrs = (
        f'orientation="staggered" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE * 2}" tileheight="{TILE}" infinite="0" staggeraxis="y" '
        'staggerindex="odd"'
    )
    tilesets = f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n'
    body = tile_layers(grid, group=False)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 4, 1))


def write_world(name, text):
    grid = rows(text)
    w, h = 12, 10
    maps = []
    for qy in range(2):
        for qx in range(2):
            part = [line[qx * w:(qx + 1) * w] for line in grid[qy * h:(qy + 1) * h]]
            file = f"world_{'ns'[qy]}{'we'[qx]}.tmx"
            objects = Objects(ortho_center)
            actors(part, objects, tile_objects=False)
            attrs = (
                f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
                f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
            )
            tilesets = f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n' + props_tileset(
                PROPS_FIRSTGID
            )
            body = tile_layers(part) + objects.xml(4)
            (OUT / file).write_text(map_xml(attrs, tilesets, body, 5, objects.next_id()))
            maps.append((file, qx * w * TILE, qy * h * TILE))
    entries = ",\n".join(
        f'        {{\n            "fileName": "{file}",\n            "height": {h * TILE},\n'
        f'            "width": {w * TILE},\n            "x": {x},\n            "y": {y}\n        }}'
        for file, x, y in maps
    )
    (OUT / name).write_text(
        '{\n    "maps": [\n' + entries + '\n    ],\n    "onlyShowAdjacentMaps": false,\n'
        '    "type": "world"\n}\n'
    )


def write_odd_cases(name):
    """A map made by hand with mistakes the plugin warns about and survives: property values of
    the wrong type, an object viewer off the map, a tile layer drawn offset from the grid."""
    grid = rows("""
##########
#........#
#...##...#
#........#
#........#
##########
""")
    w, h = len(grid[0]), len(grid)
    objects = Objects(ortho_center)
    objects.point("Blind", "", 2, 1, [prop("sight_radius", "string", "six")])
    objects.point("Negative", "", 7, 3, [prop("sight_radius", "int", 3), prop("team", "int", -2)])
    objects.add(
        f'  <object id="{objects.next_id()}" name="Lost" x="-40" y="24">\n'
        + properties([prop("sight_radius", "int", 4)])
        + "   <point/>\n  </object>\n"
    )
    # A tileset whose wall says `block_line_of_sight` with an int, not a bool.
    tilesets = (
        f' <tileset firstgid="{TSX_FIRSTGID}" name="typos" tilewidth="{TILE}" '
        f'tileheight="{TILE}" tilecount="8" columns="8">\n'
        '  <image source="../tiles.png" width="128" height="16"/>\n'
        f'  <tile id="{WALL}">\n   <properties>\n'
        '    <property name="block_line_of_sight" type="int" value="1"/>\n'
        "   </properties>\n  </tile>\n </tileset>\n"
    )
    floor = (
        f' <layer id="1" name="Floor" width="{w}" height="{h}">\n'
        f'  <data encoding="csv">\n{csv(grid, "Floor")}</data>\n </layer>\n'
    )
    walls = (
        f' <layer id="2" name="Shifted" width="{w}" height="{h}" offsetx="8">\n'
        f'  <data encoding="csv">\n{csv(grid, "Walls")}</data>\n </layer>\n'
    )
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
    )
    body = floor + walls + objects.xml(3)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 4, objects.next_id()))


def write_hills(name):
    """High ground from Tiled: tiles whose tileset tile has an int `elevation` (a terrace at 2,
    a plateau at 4), a watchtower object that raises its own tile to 5, and a scout in the
    valley."""
    grid = rows("""
############
#....22444.#
#....22444.#
#..#.22.44.#
#....22444.#
############
""")
    w, h = len(grid[0]), len(grid)
    terrace, plateau = 3, 4
    gids = {"#": TSX_FIRSTGID + WALL, "2": TSX_FIRSTGID + terrace, "4": TSX_FIRSTGID + plateau}
    cells = ",\n".join(
        ",".join(str(gids.get(c, TSX_FIRSTGID + FLOOR)) for c in row) for row in grid
    )
    objects = Objects(ortho_center)
    objects.point("Scout", "", 2, 2, [prop("sight_radius", "int", 12)])
    objects.point("Tower", "", 10, 4, [prop("elevation", "int", 5)])
    level = lambda tile, n: (
        f'  <tile id="{tile}">\n   <properties>\n'
        f'    <property name="elevation" type="int" value="{n}"/>\n'
        "   </properties>\n  </tile>\n"
    )
    tilesets = (
        f' <tileset firstgid="{TSX_FIRSTGID}" name="hills" tilewidth="{TILE}" '
        f'tileheight="{TILE}" tilecount="8" columns="8">\n'
        '  <image source="../tiles.png" width="128" height="16"/>\n'
        f'  <tile id="{WALL}">\n   <properties>\n'
        '    <property name="block_line_of_sight" type="bool" value="true"/>\n'
        "   </properties>\n  </tile>\n"
        + level(terrace, 2)
        + level(plateau, 4)
        + " </tileset>\n"
    )
    ground = (
        f' <layer id="1" name="Ground" width="{w}" height="{h}">\n'
        f'  <data encoding="csv">\n{cells}\n</data>\n </layer>\n'
    )
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
    )
    body = ground + objects.xml(2)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 3, objects.next_id()))


def write_foreign(name):
    """A room drawn in another project: class properties of types this game never registered
    (`other_game::Loot` on an object, `other_game::Terrain` on a tileset tile, one nested in
    another), beside our own reflected `Team` and `sight_radius` on the player."""
    grid = rows("""
##########
#........#
#..##....#
#........#
##########
""")
    w, h = len(grid[0]), len(grid)
    loot = class_prop("Loot", "other_game::Loot", prop("gold", "int", 5))
    nested = class_prop(
        "Chest", "other_game::Chest", class_prop("inside", "other_game::Loot", prop("gold", "int", 2))
    )
    objects = Objects(ortho_center)
    objects.point(
        "Player", "", 2, 1,
        [prop("sight_radius", "int", 6), class_prop("Team", "bevy_viewshed::Team", prop("0", "int", 3))],
    )
    objects.point("Coins", "Treasure", 7, 3, [loot, nested])
    tilesets = (
        f' <tileset firstgid="{TSX_FIRSTGID}" name="foreign" tilewidth="{TILE}" '
        f'tileheight="{TILE}" tilecount="8" columns="8">\n'
        '  <image source="../tiles.png" width="128" height="16"/>\n'
        f'  <tile id="{WALL}">\n   <properties>\n'
        '    <property name="block_line_of_sight" type="bool" value="true"/>\n'
        "   </properties>\n  </tile>\n"
        f'  <tile id="{FLOOR}">\n   <properties>\n'
        + class_prop("Terrain", "other_game::Terrain", prop("speed", "float", 1.5))
        + "   </properties>\n  </tile>\n </tileset>\n"
    )
    cells = ",\n".join(
        ",".join(str(TSX_FIRSTGID + (WALL if c == "#" else FLOOR)) for c in row) for row in grid
    )
    ground = (
        f' <layer id="1" name="Ground" width="{w}" height="{h}">\n'
        f'  <data encoding="csv">\n{cells}\n</data>\n </layer>\n'
    )
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
    )
    body = ground + objects.xml(2)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 3, objects.next_id()))


def write_decorated(name):
    """A room with its decorations drawn beside it, as maps often are: tile objects (the
    tileset's plain white tile) to the left of, to the right of and below the tile layers,
    which stand on no tile, and a chest (a closed door tile) on the floor, which does."""
    grid = rows("""
##########
#..@.....#
#........#
#......C.#
##########
""")
    w, h = len(grid[0]), len(grid)
    objects = Objects(ortho_center)
    objects.point("Player", "Player", 3, 1, [prop("sight_radius", "int", 3)])
    objects.tile("Chest", "", TSX_FIRSTGID + CLOSED_DOOR, 7, 3, [])
    for label, col, row in [("West", -3, 2), ("East", w + 2, 1), ("South", 4, h + 2)]:
        objects.tile(f"Decoration {label}", "", TSX_FIRSTGID + 7, col, row, [])
    tilesets = f' <tileset firstgid="{TSX_FIRSTGID}" source="tiles.tsx"/>\n'
    attrs = (
        f'orientation="orthogonal" renderorder="right-down" width="{w}" height="{h}" '
        f'tilewidth="{TILE}" tileheight="{TILE}" infinite="0"'
    )
    grid = [line.replace("C", ".") for line in grid]
    body = tile_layers(grid, group=False) + objects.xml(4)
    (OUT / name).write_text(map_xml(attrs, tilesets, body, 5, objects.next_id()))


def main():
    OUT.mkdir(exist_ok=True)
    write_tsx()
    write_ortho("room.tmx", ROOM)
    write_iso("isometric.tmx", ISO)
    write_iso("isometric_tall.tmx", ISO_TALL)
    for axis, index in [("y", "odd"), ("y", "even"), ("x", "odd"), ("x", "even")]:
        write_hex(f"hex_{axis}_{index}.tmx", HEX, axis, index)
    write_infinite("infinite.tmx", INFINITE)
    write_staggered("staggered.tmx", STAGGERED)
    write_world("four_maps.world", WORLD)
    write_odd_cases("odd_cases.tmx")
    write_hills("hills.tmx")
    write_foreign("foreign.tmx")
    write_decorated("decorated.tmx")
    write_ortho("tiled_map.tmx", EXAMPLE, external=False)


if __name__ == "__main__":
    main()
