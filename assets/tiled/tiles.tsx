<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.2" name="tiles" tilewidth="16" tileheight="16" tilecount="8" columns="8">
 <image source="../tiles.png" width="128" height="16"/>
 <tile id="1">
  <properties>
   <property name="block_line_of_sight" type="bool" value="true"/>
  </properties>
 </tile>
 <tile id="2" type="Door"/>
</tileset>
